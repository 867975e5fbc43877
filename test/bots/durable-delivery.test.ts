import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Webhook } from 'standardwebhooks'
import { afterEach, expect, it } from 'vitest'
import { logsOf, pendingDeliveries, startReceiver, webhookBotApp } from './receiver.ts'
import { eventually } from '../helpers/wait.ts'

// A delivery is recorded with the message that causes it: an app that stops (or dies) before the
// bot took the event delivers it once started again on the same database, with the same webhook-id.

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

it('delivers after a restart on the same database what the stopped app had not delivered', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'confab-durable-'))
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
  const databaseUrl = join(dir, 'confab.db')
  const receiver = await startReceiver(() => 'hang')
  cleanups.push(receiver.close)

  const first = await webhookBotApp({ url: receiver.url, databaseUrl })
  const alice = await first.t.user('alice')
  await first.t.conversation(alice.key, 'c1')
  const res = await first.t.chat('POST', '/messages', { key: alice.key, body: { conversationId: 'c1', payload: { type: 'text', text: 'hi' } } })
  expect(res.status).toBe(200)
  await eventually(() => expect(receiver.received).toHaveLength(1))
  // The first app goes away while the bot holds the request: its attempt is abandoned, not settled.
  await first.t.close()
  await receiver.received[0]!.closed

  receiver.answer = () => ({ status: 200 })
  const second = await webhookBotApp({ databaseUrl })
  cleanups.push(second.t.close)
  await eventually(() => expect(receiver.received).toHaveLength(2))
  await second.t.app.bots.idle()
  const [before, after] = receiver.received
  expect(after!.headers['webhook-id']).toBe(before!.headers['webhook-id'])
  expect(new Webhook(first.secret).verify(after!.body, after!.headers)).toMatchObject({ type: 'message' })
  expect(await pendingDeliveries(second.t)).toEqual([])
  expect((await logsOf(second.t)).map((l) => [l.level, l.message.replace(/\d+ ms$/, 'N ms')])).toEqual([
    ['info', `POST ${receiver.url} (attempt 1 of 10): HTTP 200 in N ms`],
  ])
})
