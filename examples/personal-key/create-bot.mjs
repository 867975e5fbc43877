// Creates a bot in personal key mode with @botpress/client (CONFAB_URL, TOKEN, WORKSPACE): its chat
// integration signs and verifies user keys with a key of yours (made here), so only the users your backend
// signs a key for get in. Prints the variables chat.mjs reads: the bot's CHAT URL and CHAT_SIGNING_KEY.
import { randomBytes } from 'node:crypto'
import { Client } from '@botpress/client'

const admin = new Client({ apiUrl: process.env.CONFAB_URL, token: process.env.TOKEN, workspaceId: process.env.WORKSPACE })
// 32 random bytes: keep it with your backend's secrets; Confab never shows it again.
const signingKey = randomBytes(32).toString('base64url')
// No url: the built-in echo bot answers it. Its personal key is set as for any bot (updateBot).
const { bot: created } = await admin.createBot({ name: 'Members only' })
const { bot } = await admin.updateBot({ id: created.id, integrations: { chat: { configuration: { encryptionKey: signingKey } } } })
console.log(`export BOT_ID=${bot.id} CHAT=${bot.integrations.chat.webhookUrl} CHAT_SIGNING_KEY=${signingKey}`)
