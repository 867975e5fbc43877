import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client as ChatClient } from '@botpress/chat'
import { Client } from '@botpress/client'
import { Webhook } from 'standardwebhooks'
import { afterAll, expect, it } from 'vitest'
import { randomAdminToken, type RunningServer, START_TIMEOUT, startServer } from '../helpers/server.ts'
import { startReceiver } from './receiver.ts'
import { eventually } from '../helpers/wait.ts'

// The real server (`npm start`) killed with SIGKILL after the user's 200, while the bot holds the
// delivery: started again on the same database, it delivers the event, with the same webhook-id.

const dir = mkdtempSync(join(tmpdir(), 'confab-crash-'))
const databaseUrl = join(dir, 'confab.db')
const env = { CONFAB_WORKSPACE_ID: 'wkspace_crash', CONFAB_ADMIN_TOKEN: randomAdminToken() }
const started: RunningServer[] = []
const receiver = await startReceiver(() => 'hang')

afterAll(async () => {
  await Promise.allSettled(started.map((s) => s.stop()))
  await receiver.close()
  rmSync(dir, { recursive: true, force: true })
}, 60_000)

it(
  'delivers after kill -9 and a restart what was accepted before the crash',
  async () => {
    const first = await startServer({ databaseUrl, env })
    started.push(first)
    const admin = new Client({ apiUrl: first.baseUrl, token: env.CONFAB_ADMIN_TOKEN, workspaceId: env.CONFAB_WORKSPACE_ID })
    const { bot } = await admin.createBot({ name: 'Crash bot', url: receiver.url })
    const chat = await ChatClient.connect({ apiUrl: bot.integrations.chat!.webhookUrl })
    const { conversation } = await chat.createConversation({})
    const { message } = await chat.createMessage({ conversationId: conversation.id, payload: { type: 'text', text: 'hi' } })
    await eventually(() => expect(receiver.received).toHaveLength(1))
    await first.kill()

    receiver.answer = () => ({ status: 200 })
    const second = await startServer({ databaseUrl, env })
    started.push(second)
    await eventually(() => expect(receiver.received).toHaveLength(2))
    const [before, after] = receiver.received
    expect(after!.headers['webhook-id']).toBe(before!.headers['webhook-id'])
    const verified = new Webhook(bot.signingSecret).verify(after!.body, after!.headers) as { data: { messageId: string } }
    expect(verified).toMatchObject({ type: 'message', data: { messageId: message.id, conversationId: conversation.id } })

    // The second server took the answer: its logs name the attempt, and nothing is left to send.
    const admin2 = new Client({ apiUrl: second.baseUrl, token: env.CONFAB_ADMIN_TOKEN, workspaceId: env.CONFAB_WORKSPACE_ID })
    await eventually(async () => {
      const { logs } = await admin2.getBotLogs({ id: bot.id, timeStart: '2000-01-01T00:00:00.000Z' })
      expect(logs.map((l) => l.message)).toEqual([expect.stringMatching(/^POST .+ \(attempt 1 of 10\): HTTP 200 in \d+ ms$/)])
    })
  },
  2 * START_TIMEOUT + 30_000,
)
