// A client of a bot in personal key mode: your backend signs a user key for a user it knows (USER_ID)
// with the bot's personal key (CHAT_SIGNING_KEY), your user's app chats with that key through the
// official @botpress/chat. Sends each argument as a message and prints the bot's answer.
import { Client } from '@botpress/chat'
import { SignJWT } from 'jose'

const { CHAT, CHAT_SIGNING_KEY } = process.env
if (!CHAT || !CHAT_SIGNING_KEY) throw new Error('Set CHAT and CHAT_SIGNING_KEY (eval "$(node examples/personal-key/create-bot.mjs)" sets both)')
const userId = process.env.USER_ID ?? 'customer-123'

// Your backend, once it knows who the user is: a key for that user, valid for an hour. The signing key
// itself never leaves the backend.
const userKey = await new SignJWT({ id: userId })
  .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
  .setExpirationTime('1h')
  .sign(new TextEncoder().encode(CHAT_SIGNING_KEY))

// Nobody else gets in: a user cannot be created without a key you signed (401).
const stranger = await fetch(`${CHAT}/users`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
console.log(`a stranger creating a user: ${stranger.status}`)

// Your user's app, with the key the backend handed it: the user is made on its first request.
const client = await Client.connect({ apiUrl: CHAT, userKey })
console.log(`signed in as ${client.user.id}`)
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
