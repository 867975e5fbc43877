// Creates an SDK bot and its API key with @botpress/client (CONFAB_URL, TOKEN, WORKSPACE), gives it
// the url of my-bot.ts (on BOT_PORT) and the `botpress` protocol with a plain PUT (@botpress/client
// leaves `protocol` out of its createBot and updateBot bodies), and prints the variables my-bot.ts
// and chat.mjs read.
import { Client } from '@botpress/client'

const apiUrl = process.env.CONFAB_URL
const admin = new Client({ apiUrl, token: process.env.TOKEN, workspaceId: process.env.WORKSPACE })
const { bot } = await admin.createBot({ name: 'My SDK bot' })
const key = await admin.createBotApiKey({ botId: bot.id, note: 'my-bot.ts' })
const updated = await fetch(`${apiUrl}/v1/admin/bots/${bot.id}`, {
  method: 'PUT',
  headers: {
    authorization: `Bearer ${process.env.TOKEN}`,
    'x-workspace-id': process.env.WORKSPACE,
    'content-type': 'application/json',
  },
  body: JSON.stringify({ url: `http://127.0.0.1:${process.env.BOT_PORT ?? 8072}`, protocol: 'botpress' }),
})
if (!updated.ok) throw new Error(`updateBot: ${updated.status} ${await updated.text()}`)
console.log(`export BP_API_URL=${apiUrl} BP_TOKEN=${key.value} CHAT=${bot.integrations.chat.webhookUrl}`)
