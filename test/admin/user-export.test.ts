import { describe, expect, it } from 'vitest'
import { useTestApp } from '../helpers/app.ts'

// Issue 49 row 11: the admin export of a user held other users' messages (1,200 by 2 other authors in
// conversations the user was in). It now holds the user's own records and the bot's side of its
// conversations; other users appear by their ids only (docs/guides/running-on-the-internet.md).

describe("exportBotUser holds the user's own records, not other users'", () => {
  const t = useTestApp({ rateLimits: 'off', handlers: {} })

  it("leaves out the 1,200 messages and the events two other users wrote in the user's conversations", { timeout: 120_000 }, async () => {
    const alice = await t.user('alice')
    const bob = await t.user('bob')
    const carol = await t.user('carol')
    await t.conversation(alice.key, 'shared', ['bob', 'carol'])
    const mine = await t.message(alice.key, 'shared', { type: 'text', text: 'my own words' })
    for (const [author, key] of [
      ['bob', bob.key],
      ['carol', carol.key],
    ] as const) {
      for (let n = 0; n < 600; n++) await t.message(key, 'shared', { type: 'text', text: `${author} says ${n}` })
      await t.event(key, 'shared', { by: author })
    }
    expect(await t.count("select count(*) as n from messages where conversation_id = 'shared'")).toBe(1201)

    const res = await t.admin('GET', `/bots/${t.tenant!.botId}/users/alice/export`)
    expect(res.status).toBe(200)
    const [conversation] = res.body.conversations
    expect(res.body.conversations).toHaveLength(1)
    expect(conversation.participantIds).toEqual(expect.arrayContaining(['alice', 'bob', 'carol']))
    expect(conversation.messages).toEqual([expect.objectContaining({ id: mine.id, userId: 'alice', payload: { type: 'text', text: 'my own words' } })])
    expect(conversation.events).toEqual([])
    expect(JSON.stringify(res.body)).not.toMatch(/bob says|carol says|"by":/)
  })
})
