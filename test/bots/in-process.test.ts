import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { BotContext } from '../../src/bots/handler.ts'
import { loadBotModule } from '../../src/bots/module.ts'
import { loadConfig } from '../../src/config.ts'
import { logsOf, pendingDeliveries, webhookBotApp } from './receiver.ts'
import { eventually } from '../helpers/wait.ts'

// Bots without url: their handler runs in-process, on the same outbox, order, retries and logs as
// a webhook bot, with the same state.

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

const text = (value: string) => ({ type: 'text', text: value })

describe('in-process bots', () => {
  it('keep state through the handler API, read back as event.state; every attempt is logged', async () => {
    const seen: BotContext['event']['state'][] = []
    const { t } = await webhookBotApp({
      handlers: {
        echo: async ({ event, setState }) => {
          seen.push(event.state)
          await setState({ conversation: { count: seen.length }, bot: { last: event.preview } })
        },
      },
    })
    cleanups.push(t.close)
    const alice = await t.user('alice')
    await t.conversation(alice.key, 'c1')
    for (const word of ['a', 'b']) {
      await t.chat('POST', '/messages', { key: alice.key, body: { conversationId: 'c1', payload: text(word) } })
    }
    await eventually(() => expect(seen).toHaveLength(2))
    await t.app.bots.idle()
    expect(seen).toEqual([
      { conversation: {}, user: {}, bot: {} },
      { conversation: { count: 1 }, user: {}, bot: { last: 'a' } },
    ])
    expect((await logsOf(t)).map((l) => [l.level, l.conversationId, l.userId, l.message.replace(/\d+ ms$/, 'N ms')])).toEqual([
      ['info', 'c1', 'alice', 'handler "echo" (attempt 1 of 10): done in N ms'],
      ['info', 'c1', 'alice', 'handler "echo" (attempt 1 of 10): done in N ms'],
    ])
    expect(await pendingDeliveries(t)).toEqual([])
  })

  it('retry a failing handler on the schedule, then go on', async () => {
    let calls = 0
    const { t } = await webhookBotApp({
      botRetrySchedule: [0, 0],
      handlers: {
        echo: async ({ reply }) => {
          calls += 1
          if (calls === 1) throw new Error('not yet')
          await reply(text('done'))
        },
      },
    })
    cleanups.push(t.close)
    const alice = await t.user('alice')
    await t.conversation(alice.key, 'c1')
    await t.chat('POST', '/messages', { key: alice.key, body: { conversationId: 'c1', payload: text('hi') } })
    await eventually(async () => expect(await logsOf(t)).toHaveLength(2))
    expect((await logsOf(t)).map((l) => l.level)).toEqual(['warn', 'info'])
    expect((await logsOf(t))[0]!.message).toMatch(/failed \(not yet\)/)
  })
})

describe('CONFAB_BOT_MODULE and CONFAB_BOT_RETRY_SCHEDULE', () => {
  it('loads the default export of an ES module as the handler, and refuses a module without one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'confab-module-'))
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
    writeFileSync(join(dir, 'bot.mjs'), 'export default async ({ reply }) => { await reply({ type: "text", text: "from module" }) }\n')
    writeFileSync(join(dir, 'none.mjs'), 'export const handler = 1\n')
    const handler = await loadBotModule(join(dir, 'bot.mjs'))
    const replies: unknown[] = []
    await handler({ reply: async (payload: unknown) => void replies.push(payload) } as unknown as BotContext)
    expect(replies).toEqual([text('from module')])
    await expect(loadBotModule(join(dir, 'none.mjs'))).rejects.toThrow(/default export/)
  })

  it('reads the retry schedule as comma-separated seconds and refuses anything else', () => {
    expect(loadConfig({ CONFAB_BOT_RETRY_SCHEDULE: '0,1,1' }).botRetrySchedule).toEqual([0, 1, 1])
    expect(loadConfig({}).botRetrySchedule).toBeUndefined()
    expect(() => loadConfig({ CONFAB_BOT_RETRY_SCHEDULE: '0,soon' })).toThrow(/CONFAB_BOT_RETRY_SCHEDULE/)
    expect(() => loadConfig({ CONFAB_BOT_RETRY_SCHEDULE: '0,-1' })).toThrow(/CONFAB_BOT_RETRY_SCHEDULE/)
  })
})
