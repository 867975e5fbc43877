import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchChromium } from '../helpers/browser.ts'
import { freePort } from '../helpers/private-services.ts'
import { ROOT, type RunningServer, START_TIMEOUT, startServer } from '../helpers/server.ts'
import { eventually } from '../helpers/wait.ts'

// The first hour, as a newcomer spends it: Confab started with `npm start`, the values it printed
// copied into the shell, then each walkthrough's commands run exactly as the docs show them (each
// command is looked up in its page first), in fresh processes from the repository root.

const doc = (path: string) => readFileSync(join(ROOT, path), 'utf8')

/** `text`, once the page at `path` is known to show it as written. */
function documented(path: string, text: string): string {
  expect(doc(path), `${path} no longer shows:\n${text}`).toContain(text)
  return text
}

const children = new Set<ChildProcess>()

/** Ends a process group started here (a shell and what it left running in the background). */
const endGroup = (child: ChildProcess) => {
  try {
    process.kill(-(child.pid as number), 'SIGTERM')
  } catch {}
}

/** A shell script run as a newcomer's shell would, to its end; what it left in the background is ended then. */
function sh(script: string, env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const child = spawn('sh', ['-c', script], { cwd: ROOT, detached: true, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  children.add(child)
  let output = ''
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
  return new Promise((resolve) => {
    let code: number | null = null
    child.once('exit', (status) => {
      code = status
      endGroup(child)
    })
    child.once('close', () => {
      children.delete(child)
      resolve({ code, output })
    })
  })
}

/** A long-running command started as documented; resolves once its output matches `ready`. */
function startCommand(command: string, env: Record<string, string>, ready: RegExp): Promise<{ output: () => string }> {
  const child = spawn('sh', ['-c', command], { cwd: ROOT, detached: true, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  children.add(child)
  let output = ''
  return new Promise((resolve, reject) => {
    const onData = (chunk: string) => {
      output += chunk
      if (ready.test(output)) resolve({ output: () => output })
    }
    child.stdout?.setEncoding('utf8').on('data', onData)
    child.stderr?.setEncoding('utf8').on('data', onData)
    child.once('exit', (code) => reject(new Error(`${command} exited (${code}) before it was ready:\n${output}`)))
  })
}

/** The value printed after `label` in the first start's output. */
const printed = (stdout: string, label: RegExp) => {
  const value = new RegExp(`${label.source}\\s+(\\S+)`, 'm').exec(stdout)?.[1]
  if (!value) throw new Error(`the first start printed no ${label}:\n${stdout}`)
  return value
}

const dir = mkdtempSync(join(tmpdir(), 'confab-first-hour-'))
const webchatPort = await freePort()
let confab: RunningServer
/** The shell the docs assume: what the first start printed, exported as the README says. */
let shell: Record<string, string>

beforeAll(async () => {
  // The web chat guide starts Confab with the example page's origin allowed; the port is the newcomer's choice.
  documented('docs/guides/webchat.md', 'CORS_ORIGINS=http://127.0.0.1:8080 npm start')
  confab = await startServer({ databaseUrl: join(dir, 'confab.db'), env: { CORS_ORIGINS: `http://127.0.0.1:${webchatPort}` } })
  // The export line follows the listening line that startServer waits for: it may come in a later chunk.
  await eventually(() => expect(confab.stdout()).toMatch(/^export CONFAB_URL=\S+$/m))
  const stdout = confab.stdout()
  documented('README.md', 'export CONFAB_URL=http://127.0.0.1:3000 WEBHOOK_ID=<webhook id> TOKEN=<admin token> WORKSPACE=<workspace id>')
  shell = {
    CONFAB_URL: /^export CONFAB_URL=(\S+)$/m.exec(stdout)?.[1] ?? '',
    WEBHOOK_ID: printed(stdout, /webhook id:/),
    TOKEN: printed(stdout, /admin token:/),
    WORKSPACE: printed(stdout, /workspace id:/),
  }
}, START_TIMEOUT + 30_000)

afterAll(async () => {
  for (const child of children) endGroup(child)
  await confab?.stop()
  rmSync(dir, { recursive: true, force: true })
}, 60_000)

describe('the first start', () => {
  it('prints the address the examples read as an export line, CONFAB_URL', () => {
    expect(confab.stdout()).toContain(`export CONFAB_URL=${confab.baseUrl}\n`)
    expect(shell.CONFAB_URL).toBe(confab.baseUrl)
  })
})

describe('README: the five-minute tour', () => {
  it('runs as written: a user, a conversation, a message the echo bot answers, GraphQL, the bots', { timeout: 60_000 }, async () => {
    const { code, output } = await sh(documented('README.md', 'sh examples/tour.sh'), shell)
    expect(code).toBe(0)
    expect(output).toMatch(/"user":\{"id":"[^"]+","name":"Ada"/)
    expect(output).toMatch(/\{"conversation":\{"id":"support-\d+"/)
    expect(output).toMatch(/\{"message":\{"id":"[^"]+","createdAt":"[^"]+","payload":\{"type":"text","text":"Hello!"\}/)
    expect(output).toMatch(/\{"event":\{"id":"[^"]+","createdAt":"[^"]+","payload":\{"type":"page_view","path":"\/pricing"\}/)
    expect(output).toMatch(/\{"data":\{"me":\{"userId":"[^"]+","name":"Ada"\}/)
    expect(output).toMatch(/\{"bots":\[\{"id":"[^"]+","createdAt":"[^"]+","updatedAt":"[^"]+","name":"Echo bot"/)
    expect(output).not.toMatch(/"code":\s*[45]\d\d/)
  })

  it('chats with the echo bot through @botpress/chat (examples/chat.mjs)', { timeout: 60_000 }, async () => {
    const command = documented('README.md', 'CHAT=$CONFAB_URL/$WEBHOOK_ID node examples/chat.mjs hello')
    const { code, output } = await sh(command, shell)
    expect({ code, output }).toEqual({ code: 0, output: 'me:  hello\nbot: hello\n' })
  })
})

describe('docs/guides/bots.md: a webhook bot', () => {
  it('created, started and chatted with in the order written; its deliveries are in its logs', { timeout: 90_000 }, async () => {
    const steps = documented(
      'docs/guides/bots.md',
      `eval "$(node examples/webhook-bot/create-bot.mjs)"   # creates the bot; sets BOT_ID, SIGNING_SECRET and CHAT
node examples/webhook-bot/bot.mjs &                  # the bot: "Parrot listening on http://127.0.0.1:8071/"
node examples/chat.mjs hello                         # me: hello, then bot: you said: hello
`,
    )
    const logs = documented(
      'docs/guides/bots.md',
      'curl -s "$CONFAB_URL/v1/admin/bots/$BOT_ID/logs?timeStart=2020-01-01T00:00:00Z" -H "authorization: Bearer $TOKEN" -H "x-workspace-id: $WORKSPACE"',
    )
    const botPort = await freePort()
    const { code, output } = await sh(`${steps}${logs}\n`, { ...shell, BOT_PORT: String(botPort) })
    expect(code).toBe(0)
    expect(output).toContain(`Parrot listening on http://127.0.0.1:${botPort}/`)
    expect(output.split('\n').filter((line) => /^(me|bot):/.test(line))).toEqual(['me:  hello', 'bot: you said: hello'])
    expect(output).toMatch(new RegExp(`"level":"info","message":"POST http://127\\.0\\.0\\.1:${botPort}/ \\(attempt \\d+ of \\d+\\): HTTP 200 in \\d+ ms"`))
  })
})

describe('docs/guides/sdk-bots.md: a Botpress SDK bot', () => {
  it('set up, started and chatted with as written: its counter kept in conversation state; its chat:sendEvent answers a custom event', {
    timeout: 120_000,
  }, async () => {
    const steps = documented(
      'docs/guides/sdk-bots.md',
      `eval "$(node examples/sdk-bot/setup-bot.mjs)"   # creates the bot and its API key; sets BP_API_URL, BP_TOKEN and CHAT
npx tsx examples/sdk-bot/my-bot.ts &            # the bot: "Listening on port 8072"
node examples/chat.mjs hello again              # bot: #1: hello, then bot: #2: again
`,
    )
    const ping = documented('docs/guides/sdk-bots.md', 'node examples/sdk-bot/ping.mjs                  # me: {"ping":1}, then bot: {"pong":{"ping":1}}\n')
    const botPort = await freePort()
    const { code, output } = await sh(`${steps}${ping}`, { ...shell, BOT_PORT: String(botPort) })
    expect(code).toBe(0)
    expect(output).toContain(`Listening on port ${botPort}`)
    // The bot writes to the same terminal: its lines may come between chat.mjs's.
    expect(output.split('\n').filter((line) => /^(me|bot):/.test(line))).toEqual([
      'me:  hello',
      'bot: #1: hello',
      'me:  again',
      'bot: #2: again',
      'me:  {"ping":1}',
      'bot: {"pong":{"ping":1}}',
    ])
  })
})

describe('docs/guides/webchat.md: the web chats', () => {
  let browser: Browser
  beforeAll(async () => {
    browser = await launchChromium()
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
  })

  it("Confab's own, at $CONFAB_URL/<webhook id>/: the echo bot answers", { timeout: 60_000 }, async () => {
    documented('README.md', 'open `$CONFAB_URL/<webhook id>/` in a browser')
    const page = await browser.newPage()
    await page.goto(`${shell.CONFAB_URL}/${shell.WEBHOOK_ID}/`)
    await expect.poll(() => page.locator('#status').textContent(), { timeout: 20_000 }).toBe('Connected')
    await page.fill('#text', 'hello from the first hour')
    await page.press('#text', 'Enter')
    await expect.poll(() => page.locator('.message.bot .bubble .text').allTextContents(), { timeout: 15_000 }).toEqual(['hello from the first hour'])
    await page.close()
  })

  it('the official @botpress/webchat, served by npm run example:webchat: the echo bot answers', { timeout: 120_000 }, async () => {
    const example = await startCommand(
      documented('docs/guides/webchat.md', 'npm run example:webchat'),
      { ...shell, WEBCHAT_PORT: String(webchatPort) },
      /The official web chat against \S+: (http:\/\/\S+)/,
    )
    const url = /The official web chat against \S+: (http:\/\/\S+)/.exec(example.output())?.[1] as string
    expect(url).toBe(`http://127.0.0.1:${webchatPort}/`)
    const page = await browser.newPage()
    await page.goto(url)
    await expect.poll(() => page.locator('.bpComposerContainer[data-disabled="false"]').count(), { timeout: 30_000 }).toBe(1)
    await page.fill('textarea.bpComposerInput', 'hello, official web chat')
    await page.press('textarea.bpComposerInput', 'Enter')
    const incoming = page.locator('.bpMessageContainer[data-direction="incoming"] .bpMessageBlocksTextText')
    await expect.poll(() => incoming.allTextContents(), { timeout: 20_000 }).toEqual(['hello, official web chat'])
    await page.close()
  })
})
