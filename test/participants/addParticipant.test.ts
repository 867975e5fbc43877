import { describe, expect, it } from 'vitest'
import { iso, useTestApp } from '../helpers/app.ts'
import { describeAccess } from '../helpers/access.ts'
import { useOfficialClient, withoutKey } from '../helpers/listening.ts'
import { expectRefusal, TRANSPORTS } from '../helpers/transports.ts'

const ADD_PARTICIPANT = /* GraphQL */ `
  mutation ($input: AddParticipantInput!) {
    addParticipant(input: $input) { participant { id userId name pictureUrl profile createdAt updatedAt } }
  }
`

describe('addParticipant', () => {
  const t = useTestApp({ handlers: {} })
  const addParticipant = {
    REST: (key: string | undefined, conversationId: string, body: object) => t.chat('POST', `/conversations/${conversationId}/participants`, { key, body }),
    GraphQL: (key: string | undefined, conversationId: string, body: object) => t.graphql(ADD_PARTICIPANT, { input: { conversationId, ...body } }, { key }),
  }
  /** The id of the participant a transport answered with. */
  const added = {
    REST: (res: { body: any }) => res.body.participant.id as string,
    GraphQL: (res: { body: any }) => res.body.data.addParticipant.participant.userId as string,
  }

  describe('REST POST /conversations/{conversationId}/participants', () => {
    it.each([
      ['its name and picture, not its profile', { name: 'Bob', pictureUrl: 'https://pics.test/bob.png', profile: 'likes:cats' }],
      ['no profile field, leaving them out instead of sending null', {}],
    ])('answers the added user as the participant, with %s', async (_what, profile) => {
      const alice = await t.user('alice')
      const bob = await t.user('bob', profile)
      await t.conversation(alice.key, 'c1')
      const res = await addParticipant.REST(alice.key, 'c1', { userId: 'bob' })
      expect(res.status).toBe(200)
      // Its profile is bob's own (issue 49, M3): adding bob does not read it; its name and picture are shown.
      const { profile: _own, ...shown } = profile as { profile?: string }
      expect(res.body).toStrictEqual({ participant: { id: 'bob', ...shown, createdAt: bob.user.createdAt, updatedAt: bob.user.updatedAt } })
      expect(res.body.participant.createdAt).toEqual(iso)
    })

    const takes = (name: string) => `the request body has a property "${name}" that this operation does not take`
    it.each([
      ['an extra property', { userId: 'bob', role: 'admin' }, takes('role')],
      ['the conversationId in the body', { userId: 'bob', conversationId: 'c1' }, takes('conversationId')],
      ['no userId', {}, 'userId is required: expected a string'],
      ['a userId that is a number', { userId: 5 }, 'userId: expected a string, got the number 5'],
      ['a userId that is null', { userId: null }, 'userId: expected a string, got null'],
      ['a userId that is an array', { userId: ['bob'] }, 'userId: expected a string, got a list'],
      ['a userId that is an object', { userId: { id: 'bob' } }, 'userId: expected a string, got an object'],
    ])('refuses a body with %s with 400 InvalidPayload, saying so, and adds nobody', async (_what, body, message) => {
      const alice = await t.user('alice')
      await t.user('bob')
      await t.conversation(alice.key, 'c1')
      expectRefusal(await addParticipant.REST(alice.key, 'c1', body), 'REST', 400, 'InvalidPayload', null, message)
      expect(await t.participantIds(alice.key, 'c1')).toEqual(['alice'])
    })
  })

  it('GraphQL addParticipant answers the added user field by field', async () => {
    const alice = await t.user('alice')
    const bob = await t.user('bob', { name: 'Bob', pictureUrl: 'https://example.com/bob.png', profile: 'b' })
    await t.conversation(alice.key, 'c1')
    const res = await addParticipant.GraphQL(alice.key, 'c1', { userId: 'bob' })
    expect({ status: res.status, errors: res.body.errors }).toEqual({ status: 200, errors: undefined })
    const { createdAt, updatedAt } = bob.user
    const fields = { userId: 'bob', name: 'Bob', pictureUrl: 'https://example.com/bob.png', profile: null, createdAt, updatedAt }
    expect(res.body.data.addParticipant.participant).toEqual({ id: expect.any(String), ...fields })
  })

  describe.each(TRANSPORTS)('%s', (transport) => {
    it('lets any participant add users, listed once each, after the owner, in join order, and able to act', async () => {
      const alice = await t.user('alice')
      const bob = await t.user('bob')
      await t.user('carol')
      await t.conversation(alice.key, 'c1')
      expect(added[transport](await addParticipant[transport](alice.key, 'c1', { userId: 'bob' }))).toBe('bob')
      expect(added[transport](await addParticipant[transport](bob.key, 'c1', { userId: 'carol' }))).toBe('carol')
      expect(await t.participantIds(bob.key, 'c1')).toEqual(['alice', 'bob', 'carol'])
    })

    it('is idempotent: adding a participant again, the owner included, answers the same participant, listed once', async () => {
      const alice = await t.user('alice')
      await t.user('bob', { name: 'Bob' })
      await t.conversation(alice.key, 'c1')
      for (const userId of ['bob', 'alice']) {
        const first = await addParticipant[transport](alice.key, 'c1', { userId })
        const again = await addParticipant[transport](alice.key, 'c1', { userId })
        expect(again.status).toBe(200)
        expect(again.body).toEqual(first.body)
        expect(added[transport](again)).toBe(userId)
      }
      expect(await t.participantIds(alice.key, 'c1')).toEqual(['alice', 'bob'])
    })

    it('answers 404 ResourceNotFound for a user that does not exist, here or only in another chat integration, adding nobody', async () => {
      const alice = await t.user('alice')
      await t.conversation(alice.key, 'c1')
      const other = await t.otherTenant()
      expect((await other.chat('POST', '/users/get-or-create', { key: await other.keyFor('dan') })).status).toBe(200)
      for (const userId of ['ghost', 'dan']) {
        expectRefusal(await addParticipant[transport](alice.key, 'c1', { userId }), transport, 404, 'ResourceNotFound', ['addParticipant'])
      }
      expect(await t.participantIds(alice.key, 'c1')).toEqual(['alice'])
    })
  })

  describe('official client', () => {
    const client = useOfficialClient(t)

    it('adds the user and answers it as the participant', async () => {
      const alice = await client.connect('alice')
      const { user } = await client.bare().createUser({ id: 'bob', name: 'Bob', pictureUrl: 'https://pics.test/b.png' })
      await alice.createConversation({ id: 'c1' })
      expect(await alice.addParticipant({ conversationId: 'c1', userId: 'bob' })).toEqual({ participant: user })
      expect(await alice.listParticipants({ conversationId: 'c1' })).toEqual({ participants: [withoutKey(alice.user), user], meta: {} })
    })
  })

  describeAccess(t, 'addParticipant', addParticipant, ({ conversationId }) => [conversationId, { userId: 'mallory' }])
})
