// Sends the SDK bot a custom event through @botpress/chat and prints the event the bot answers with
// (chat:sendEvent). CHAT is the bot's webhookUrl (setup-bot.mjs prints it).
import { Client } from '@botpress/chat'

if (!process.env.CHAT) throw new Error('Set CHAT to the webhookUrl of the bot (setup-bot.mjs prints it)')
const client = await Client.connect({ apiUrl: process.env.CHAT })
const { conversation } = await client.createConversation({})
const listener = await client.listenConversation({ id: conversation.id })
const answered = new Promise((resolve, reject) => {
  const timer = setTimeout(() => reject(new Error('no answer within 30 s: is the bot running?')), 30_000)
  listener.onceOrMore('event_created', (event) => {
    if (!event.isBot) return 'keep-listening'
    clearTimeout(timer)
    resolve(event.payload)
    return 'stop-listening'
  })
})

const payload = { ping: 1 }
await client.createEvent({ conversationId: conversation.id, payload })
console.log(`me:  ${JSON.stringify(payload)}`)
console.log(`bot: ${JSON.stringify(await answered)}`)
await listener.disconnect()
