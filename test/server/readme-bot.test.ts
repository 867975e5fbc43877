import { type ChildProcess, spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createServer as createNetServer } from 'node:net'
import { Client as ChatClient } from '@botpress/chat'
import { Client } from '@botpress/client'
import { pino } from 'pino'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { type ConfabServer, createServer } from '../../src/index.ts'
import { ROOT } from '../helpers/server.ts'

// The bring-your-own-bot walkthrough of docs/guides/bots.md, as written: its ten-line node:http bot
// (run from the guide's own text), created with @botpress/client, chatted with through @botpress/chat
// at the returned webhookUrl, its deliveries in getBotLogs.

const readmeBot = (): string => {
  const guide = readFileSync(`${ROOT}/docs/guides/bots.md`, 'utf8')
  const block = /A ten-line bot in plain `node:http`[^\n]*\n+```js\n([\s\S]*?)```/.exec(guide)?.[1]
  if (!block) throw new Error('docs/guides/bots.md lost its ten-line bot')
  return block
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createNetServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => resolve(port))
    })
    probe.on('error', reject)
  })

let confab: ConfabServer | undefined
let bot: ChildProcess | undefined
afterEach(async () => {
  bot?.kill('SIGKILL')
  bot = undefined
  await confab?.close()
  confab = undefined
})

describe('docs/guides/bots.md: bring your own bot, end to end', () => {
  it('the ten-line bot verifies each signed delivery and answers; the user hears it; getBotLogs shows each attempt', async () => {
    confab = await createServer({
      databaseUrl: ':memory:',
      log: pino({ level: 'silent' }),
      bootstrap: { workspaceId: 'wkspace_readme', adminToken: 'bp_pat_readme_token' },
    })
    const admin = new Client({ apiUrl: confab.url, token: 'bp_pat_readme_token', workspaceId: 'wkspace_readme' })
    const port = await freePort()
    const { bot: created } = await admin.createBot({ name: 'Parrot', url: `http://127.0.0.1:${port}/` })

    bot = spawn(process.execPath, ['--input-type=module', '-e', readmeBot()], {
      cwd: ROOT,
      env: { ...process.env, SIGNING_SECRET: created.signingSecret, PORT: String(port) },
      stdio: 'ignore',
    })
    await vi.waitFor(async () => expect((await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: '{}' })).status).toBe(401), {
      timeout: 20_000,
      interval: 50,
    })

    const chat = await ChatClient.connect({ apiUrl: created.integrations.chat!.webhookUrl })
    const { conversation } = await chat.createConversation({})
    const listener = await chat.listenConversation({ id: conversation.id })
    const heard: string[] = []
    listener.on('message_created', (message) => {
      if (message.userId === created.id) heard.push((message.payload as { text: string }).text)
    })
    await chat.createMessage({ conversationId: conversation.id, payload: { type: 'text', text: 'hello' } })
    await vi.waitFor(() => expect(heard).toEqual(['you said: hello']), { timeout: 20_000 })
    listener.disconnect()

    const { logs } = await admin.getBotLogs({ id: created.id, timeStart: new Date(Date.now() - 60_000).toISOString() })
    expect(logs).toEqual([
      expect.objectContaining({ level: 'info', conversationId: conversation.id, userId: chat.user.id, message: expect.stringMatching(/\b200\b/) }),
    ])
  })
})
