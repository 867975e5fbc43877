import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort } from '../helpers/private-services.ts'
import { documentedIn, printed, sh } from '../helpers/guide.ts'
import { type RunningServer, START_TIMEOUT, startServer } from '../helpers/server.ts'

// The operator's guide as written: its personal key example and its "Checking a set-up" command, run in
// a shell from the repository root against `npm start` (each command looked up in the page first).

const guide = 'docs/guides/running-on-the-internet.md'

const documented = documentedIn(guide)

const dir = mkdtempSync(join(tmpdir(), 'confab-operator-'))
let server: RunningServer
let publicUrl: string
let shell: Record<string, string>

beforeAll(async () => {
  // PUBLIC_URL as the guide has it behind a proxy; here the proxy is no one, at the same address.
  const port = await freePort()
  publicUrl = `http://127.0.0.1:${port}`
  server = await startServer({ databaseUrl: join(dir, 'confab.db'), env: { PORT: String(port), PUBLIC_URL: publicUrl } })
  const stdout = server.stdout()
  shell = {
    CONFAB_URL: publicUrl,
    TOKEN: printed(stdout, 'admin token:'),
    WORKSPACE: printed(stdout, 'workspace id:'),
    WEBHOOK_ID: printed(stdout, 'webhook id:'),
  }
}, START_TIMEOUT)

afterAll(async () => {
  await server?.stop()
  rmSync(dir, { recursive: true, force: true })
}, 60_000)

describe('examples/personal-key: a client of a bot in personal key mode', () => {
  it('makes the bot, refuses a stranger (401), and chats as the user the backend signed a key for', { timeout: 90_000 }, async () => {
    const steps = documented(`eval "$(node examples/personal-key/create-bot.mjs)"   # a bot in personal mode; sets BOT_ID, CHAT and CHAT_SIGNING_KEY
node examples/personal-key/chat.mjs hello             # a stranger creating a user: 401, then me: hello, bot: hello
`)
    const { code, output } = await sh(`${steps}echo "BOT_ID=$BOT_ID"\n`, shell)
    expect({ code, output }).toMatchObject({ code: 0 })
    const lines = output.trim().split('\n')
    expect(lines.slice(0, 4)).toEqual(['a stranger creating a user: 401', 'signed in as customer-123', 'me:  hello', 'bot: hello'])
    const botId = /^BOT_ID=(\S+)$/m.exec(output)?.[1] as string

    // The bot is in personal mode, as the admin API shows it (never its key).
    const bot = await fetch(`${server.baseUrl}/v1/admin/bots/${botId}`, {
      headers: { authorization: `Bearer ${shell.TOKEN}`, 'x-workspace-id': shell.WORKSPACE as string },
    })
    const { integrations } = ((await bot.json()) as { bot: { integrations: { chat: { encryptionMode: string; configuration: object } } } }).bot
    expect(integrations.chat.encryptionMode).toBe('personal')
    // The key is never shown again; no integration webhook is set.
    expect(integrations.chat.configuration).toEqual({ hasWebhookSecret: false })
  })
})

describe('running-on-the-internet.md: Checking a set-up', () => {
  it("prints each bot's webhookUrl, starting with PUBLIC_URL", { timeout: 60_000 }, async () => {
    const check = documented(`for id in $(curl -s https://chat.example.com/v1/admin/bots -H "authorization: Bearer $CONFAB_ADMIN_TOKEN" \\
    -H "x-workspace-id: $WORKSPACE_ID" | grep -o '"id":"[^"]*"' | cut -d '"' -f 4); do
  curl -s https://chat.example.com/v1/admin/bots/$id -H "authorization: Bearer $CONFAB_ADMIN_TOKEN" \\
    -H "x-workspace-id: $WORKSPACE_ID" | grep -o '"webhookUrl":"[^"]*"'
done
`)
    const { code, output } = await sh(check.replaceAll('https://chat.example.com', publicUrl), {
      CONFAB_ADMIN_TOKEN: shell.TOKEN as string,
      WORKSPACE_ID: shell.WORKSPACE as string,
    })
    expect(code).toBe(0)
    const urls = output.trim().split('\n')
    // The bootstrap bot's, and every other bot's (the personal key test's, when it ran first).
    expect(urls).toContain(`"webhookUrl":"${publicUrl}/${shell.WEBHOOK_ID}"`)
    for (const line of urls) expect(line).toMatch(new RegExp(`^"webhookUrl":"${publicUrl.replaceAll('.', '\\.')}/[^"/]+"$`))
  })
})
