// Creates a webhook bot with @botpress/client (CONFAB_URL, TOKEN, WORKSPACE) whose url is bot.mjs on
// BOT_PORT, and prints the variables the next steps read: the bot's signing secret and its CHAT URL.
import { Client } from '@botpress/client'

const admin = new Client({ apiUrl: process.env.CONFAB_URL, token: process.env.TOKEN, workspaceId: process.env.WORKSPACE })
const url = `http://127.0.0.1:${process.env.BOT_PORT ?? 8071}/`
const { bot } = await admin.createBot({ name: 'Parrot', url })
// bot.signingSecret: "whsec_…", returned by createBot only; bot.integrations.chat.webhookUrl: its chat base URL
console.log(`export BOT_ID=${bot.id} SIGNING_SECRET=${bot.signingSecret} CHAT=${bot.integrations.chat.webhookUrl}`)
