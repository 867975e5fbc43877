import { and, eq, sql } from 'drizzle-orm'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { bootstrap, firstTenant } from '../../src/bootstrap.ts'
import { chatIntegrations, conversations, messages, participants, users } from '../../src/db/sqlite/schema.ts'
import { runOften } from '../../src/db/sqlite/statement.ts'
import { openSqliteStore, type SqliteStore } from '../../src/db/sqlite/store.ts'

// runOften runs a drizzle prepared query with its per-run choices made once: every result, and
// every refusal, must be the one drizzle's own prepared query gives.

const p = sql.placeholder
let store: SqliteStore
let integrationId: string
beforeEach(async () => {
  store = openSqliteStore(':memory:')
  await bootstrap(store, firstTenant({ webhookId: 'run-often' }))
  integrationId = (await store.db.select().from(chatIntegrations).get())!.id
  const at = new Date(0).toISOString()
  await store.db.insert(users).values([
    { integrationId, id: 'u1', name: 'One', profile: 'p', isBot: false, createdAt: at, updatedAt: at },
    { integrationId, id: 'u2', createdAt: at, updatedAt: at },
  ])
  await store.db.insert(conversations).values({ integrationId, id: 'c1', ownerId: 'u1', createdAt: at, updatedAt: at })
  await store.db.insert(participants).values({ integrationId, conversationId: 'c1', userId: 'u1', joinId: 'j1', createdAt: at })
  await store.db.insert(messages).values({ integrationId, id: 'm1', conversationId: 'c1', userId: 'u1', payload: { type: 'text', text: 'hi' }, createdAt: at })
})
afterEach(() => store.close())

/** The same statement twice: drizzle's prepared query, and runOften's. */
const both = <T extends object>(make: () => T): [T, T] => [make(), runOften(make())]

describe('runOften', () => {
  it('maps the rows of a table as drizzle does: JSON decoded, booleans, nulls', () => {
    const [theirMessages, ourMessages] = both(() =>
      store.db
        .select()
        .from(messages)
        .where(eq(messages.id, p('id')))
        .prepare(),
    )
    expect(ourMessages.get({ id: 'm1' })).toEqual(theirMessages.get({ id: 'm1' }))
    expect(ourMessages.get({ id: 'm1' })).toMatchObject({ payload: { type: 'text', text: 'hi' }, metadata: null })

    const [theirs, ours] = both(() =>
      store.db
        .select()
        .from(users)
        .where(eq(users.integrationId, p('i')))
        .orderBy(users.id)
        .prepare(),
    )
    const rows = ours.all({ i: integrationId })
    expect(rows).toEqual(theirs.all({ i: integrationId }))
    expect(rows.find((row) => row.id === 'u1')).toMatchObject({ profile: 'p', isBot: false, pictureUrl: null })
    expect(ours.get({ i: integrationId })).toEqual(theirs.get({ i: integrationId }))
    expect(ours.get({ i: 'none' })).toBeUndefined()
    expect(ours.values({ i: integrationId })).toEqual(theirs.values({ i: integrationId }))
  })

  it('makes a left-joined table that matched nothing null, and keeps one that matched', () => {
    const [theirs, ours] = both(() =>
      store.db
        .select({ user: users, participant: participants })
        .from(users)
        .leftJoin(
          participants,
          and(eq(participants.integrationId, users.integrationId), eq(participants.userId, users.id), eq(participants.conversationId, p('c'))),
        )
        .where(eq(users.integrationId, p('i')))
        .orderBy(users.id)
        .prepare(),
    )
    const rows = ours.all({ i: integrationId, c: 'c1' })
    expect(rows).toEqual(theirs.all({ i: integrationId, c: 'c1' }))
    const ofTest = rows.filter((row) => ['u1', 'u2'].includes(row.user.id))
    expect(ofTest.map((row) => row.participant?.joinId ?? null)).toEqual(['j1', null])
  })

  it('encodes the values it binds with their columns, and returns what an insert returns', () => {
    const at = new Date(0).toISOString()
    const [theirs, ours] = both(() =>
      store.db
        .insert(users)
        .values({ integrationId: p('i'), id: p('id'), name: p('name'), isBot: p('isBot'), createdAt: at, updatedAt: at })
        .returning()
        .prepare(),
    )
    const mine = ours.get({ i: integrationId, id: 'u3', name: 'Three', isBot: true })
    const drizzles = theirs.get({ i: integrationId, id: 'u4', name: 'Three', isBot: true })
    expect({ ...mine, id: 'u4' }).toEqual(drizzles)
    expect(mine).toMatchObject({ name: 'Three', isBot: true })
  })

  it('refuses a run without a value for one of its placeholders, as drizzle does', () => {
    const [theirs, ours] = both(() =>
      store.db
        .select()
        .from(users)
        .where(eq(users.id, p('id')))
        .prepare(),
    )
    expect(() => theirs.get({})).toThrow('No value for placeholder "id" was provided')
    expect(() => ours.get({})).toThrow('No value for placeholder "id" was provided')
  })

  it("reads a list's items from placeholders named `list.i` (src/db/sqlite/run.ts), and refuses a list too short", () => {
    const byIds = () =>
      store.db
        .select({ id: users.id, name: users.name })
        .from(users)
        .where(and(eq(users.integrationId, p('i')), sql`${users.id} in (${p('ids.0')}, ${p('ids.1')})`))
        .orderBy(users.id)
        .prepare()
    const ours = runOften(byIds())
    expect(ours.all({ i: integrationId, ids: ['u2', 'u1'] })).toEqual([
      { id: 'u1', name: 'One' },
      { id: 'u2', name: null },
    ])
    expect(() => ours.all({ i: integrationId, ids: ['u1'] })).toThrow('No value for placeholder "ids.1" was provided')
  })
})
