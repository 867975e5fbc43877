import { describe, expect, it } from 'vitest'
import { defaultLimits } from '../../src/config.ts'
import { useTestApp } from '../helpers/app.ts'

/*
 * SQLite when the disk is full: a write SQLite cannot make (SQLITE_FULL: its file cannot grow), or a
 * sync of the WAL the disk refuses (ENOSPC), is answered 507 InsufficientStorage with the error body
 * and Retry-After, loses nothing committed, and writing works again once there is room, without a
 * restart. Always on SQLite (`:memory:` is a private temporary file).
 */

const insufficientStorage = {
  id: expect.stringMatching(/^err_/),
  code: 507,
  type: 'InsufficientStorage',
  message: 'the database has no space left; retry in 1 s',
}

/** A text too long to fit in the pages the database has: its row needs new ones. */
const large = (label: string) => `${label} ${'x'.repeat(300_000)}`

/** The start of each text the user posted (the echo bot's answers, the same texts, aside). */
const texts = (body: { messages: { userId: string; payload: { text: string } }[] }, userId: string) =>
  body.messages
    .filter((m) => m.userId === userId)
    .map((m) => m.payload.text.slice(0, 20))
    .sort()

describe('SQLite, a write the database file cannot grow for (SQLITE_FULL)', () => {
  // Messages larger than the default cap (128 KiB): one needs many new pages.
  const t = useTestApp({ databaseUrl: ':memory:', caps: { ...defaultLimits, messageMaxBytes: 1024 * 1024 } })

  it('is answered 507 with Retry-After over REST and GraphQL, keeps what was committed, and writes again once there is room', async () => {
    const { key } = await t.user('disk-user')
    await t.conversation(key, 'disk-full')
    for (const text of ['before 1', 'before 2'])
      expect((await t.chat('POST', '/messages', { key, body: { conversationId: 'disk-full', payload: { type: 'text', text } } })).status).toBe(200)

    // The file may not grow past the pages it has now: what SQLite answers on a full disk.
    const writer = t.db.$client
    writer.pragma(`max_page_count = ${writer.pragma('page_count', { simple: true })}`)
    const refused = await t.chat('POST', '/messages', { key, body: { conversationId: 'disk-full', payload: { type: 'text', text: large('during') } } })
    expect([refused.status, refused.headers.get('retry-after'), refused.body]).toEqual([507, '1', insufficientStorage])
    const graphql = await t.graphql(
      'mutation($text: String!) { createMessage(input: { conversationId: "disk-full", payload: { text: { text: $text } } }) { message { id } } }',
      { text: large('graphql') },
      { key },
    )
    expect([graphql.status, graphql.body.errors[0].extensions]).toMatchObject([507, { type: 'InsufficientStorage', status: 507 }])
    // Reads go on, and show every committed message (and none of the refused ones).
    expect(texts((await t.chat('GET', '/conversations/disk-full/messages', { key })).body, 'disk-user')).toEqual(['before 1', 'before 2'])

    writer.pragma('max_page_count = 1073741823')
    expect((await t.chat('POST', '/messages', { key, body: { conversationId: 'disk-full', payload: { type: 'text', text: large('after') } } })).status).toBe(
      200,
    )
    expect(texts((await t.chat('GET', '/conversations/disk-full/messages', { key })).body, 'disk-user')).toEqual([
      'after xxxxxxxxxxxxxx',
      'before 1',
      'before 2',
    ])
  })
})

describe('SQLite, a sync of the WAL the disk refuses (ENOSPC)', () => {
  let full = false
  const t = useTestApp({
    databaseUrl: ':memory:',
    caps: { ...defaultLimits, messageMaxBytes: 1024 * 1024 },
    beforeSync: () => {
      if (full) throw Object.assign(new Error('ENOSPC: no space left on device, fdatasync'), { code: 'ENOSPC', errno: -28, syscall: 'fdatasync' })
    },
  })

  it('is answered 507 with Retry-After (the write committed, its durability unknown, as a 503 is), and the next write once the disk has room succeeds', async () => {
    const { key } = await t.user('sync-user')
    await t.conversation(key, 'sync-full')
    full = true
    const refused = await t.chat('POST', '/messages', { key, body: { conversationId: 'sync-full', payload: { type: 'text', text: 'not durable' } } })
    expect([refused.status, refused.headers.get('retry-after'), refused.body]).toEqual([507, '1', insufficientStorage])
    full = false
    // SQLite committed it before the sync failed: it was not acknowledged, and it may be there (here it is), as
    // a write answered 503 whose commit outcome is unknown (docs/reference/errors.md).
    const written = await t.chat('POST', '/messages', { key, body: { conversationId: 'sync-full', payload: { type: 'text', text: 'durable' } } })
    expect(written.status).toBe(200)
    expect(texts((await t.chat('GET', '/conversations/sync-full/messages', { key })).body, 'sync-user')).toEqual(['durable', 'not durable'])
  })
})
