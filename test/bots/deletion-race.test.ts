import { pino } from 'pino'
import { describe, expect, it } from 'vitest'
import type { BotHandler } from '../../src/bots/handler.ts'
import { startBounded } from '../helpers/bounded.ts'
import { eventually } from '../helpers/wait.ts'
import { logsOf } from './receiver.ts'

// A conversation deleted while its bot is answering (a delivery under way) is an expected race: the
// answer is dropped and said at info level, never logged as an error (issue 49, row 14: SQLite's
// "FOREIGN KEY constraint failed" was logged at error level).

type LogEntry = Record<string, any> & { level: number; msg: string }

describe('a conversation deleted while its in-process bot answers', () => {
  it('drops the reply at info level, with no error logged, and the bot goes on with other conversations', async () => {
    const logs: LogEntry[] = []
    const log = pino({ level: 'debug' }, { write: (line: string) => void logs.push(JSON.parse(line) as LogEntry) })
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    let calls = 0
    const echo: BotHandler = async ({ message, reply }) => {
      calls += 1
      if (calls === 1) await gate
      await reply(message!.payload)
    }
    const b = await startBounded({}, { handlers: { echo }, log })
    try {
      const alice = await b.t.user('alice')
      await b.t.conversation(alice.key, 'c1')
      await b.t.message(alice.key, 'c1', { type: 'text', text: 'hello' })
      await eventually(() => expect(calls).toBe(1))
      const deleted = await fetch(`${b.apiUrl}/conversations/c1`, { method: 'DELETE', headers: { 'x-user-key': alice.key } })
      expect(deleted.status).toBe(200)
      release()
      await eventually(() => expect(logs.some((entry) => entry.msg.includes('deleted meanwhile'))).toBe(true))
      const dropped = logs.find((entry) => entry.msg.includes('deleted meanwhile'))
      expect(dropped).toMatchObject({ level: 30, conversationId: 'c1', reason: 'Conversation "c1" does not exist' })
      expect(logs.filter((entry) => entry.level >= 50)).toEqual([])
      expect(JSON.stringify(logs)).not.toMatch(/FOREIGN KEY/)

      await b.t.conversation(alice.key, 'c2')
      await b.t.message(alice.key, 'c2', { type: 'text', text: 'again' })
      await eventually(async () => expect(await b.t.count("select count(*) as n from messages where conversation_id = 'c2'")).toBe(2))
      await b.t.app.bots.idle()
      expect(logs.filter((entry) => entry.level >= 50)).toEqual([])
      expect((await logsOf(b.t)).filter((line) => line.level === 'error')).toEqual([])
    } finally {
      await b.close()
    }
  })
})
