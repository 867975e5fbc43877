// Chats with a bot through the official @botpress/chat client: sends each argument as a message and
// prints the bot's answer to it. CHAT is the chat base URL: $CONFAB_URL/$WEBHOOK_ID, or a bot's webhookUrl.
import { Client } from '@botpress/chat'

if (!process.env.CHAT) throw new Error('Set CHAT to a chat base URL: $CONFAB_URL/$WEBHOOK_ID, or the webhookUrl of a bot')
const client = await Client.connect({ apiUrl: process.env.CHAT }) // personal key mode: { apiUrl, userId, encryptionKey }
const { conversation } = await client.createConversation({})
const listener = await client.listenConversation({ id: conversation.id })

/** The next message of the bot in the conversation (its payload), or an error after 30 s. */
const answer = () =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no answer within 30 s: is the bot running? (getBotLogs tells why)')), 30_000)
    listener.onceOrMore('message_created', (message) => {
      if (!message.isBot) return 'keep-listening'
      clearTimeout(timer)
      resolve(message.payload)
      return 'stop-listening'
    })
  })

for (const text of process.argv.slice(2)) {
  const answered = answer()
  await client.createMessage({ conversationId: conversation.id, payload: { type: 'text', text } })
  console.log(`me:  ${text}`)
  console.log(`bot: ${(await answered).text}`)
}
await listener.disconnect()
