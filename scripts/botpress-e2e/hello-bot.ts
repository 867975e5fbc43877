// A stand-in for Botpress' "hello-bot", the bot its chat-client e2e tests talk to (its source is not
// public): it answers each user message once; "bloc" with a bloc of three items, "metadata" with the
// message's metadata forwarded, anything else with its payload said back. Custom events get no answer.
// Run by Confab as CONFAB_BOT_MODULE (scripts/botpress-e2e.sh).
import type { BotHandler } from '../../src/bots/handler.ts'

const helloBot: BotHandler = ({ event, message }) => {
  if (event.type !== 'message' || !message) return {}
  const { payload, metadata } = message
  if (payload.type === 'text' && payload.text === 'bloc') {
    const items = [
      { type: 'text', text: 'a bloc of three' },
      { type: 'markdown', markdown: '**two**' },
      { type: 'image', imageUrl: 'https://example.invalid/three.png' },
    ]
    return { messages: [{ payload: { type: 'bloc', items } }] }
  }
  if (payload.type === 'text' && payload.text === 'metadata') return { messages: [{ payload, metadata }] }
  return { messages: [{ payload }] }
}

export default helloBot
