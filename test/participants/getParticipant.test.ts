import { describe, expect, it } from 'vitest'
import { iso, useTestApp } from '../helpers/app.ts'
import { describeAccess } from '../helpers/access.ts'
import { USER_FIELDS } from '../helpers/graphql.ts'
import { useOfficialClient, withoutKey } from '../helpers/listening.ts'
import { expectRefusal, TRANSPORTS } from '../helpers/transports.ts'

const PARTICIPANT = /* GraphQL */ `
  query ($id: String!, $userId: String!) { conversation(id: $id) { participant(userId: $userId) { ${USER_FIELDS} } } }
`

describe('getParticipant', () => {
  const t = useTestApp({ handlers: {} })
  const getParticipant = {
    REST: (key: string | undefined, conversationId: string, userId: string) =>
      t.chat('GET', `/conversations/${conversationId}/participants/${userId}`, { key }),
    GraphQL: (key: string | undefined, conversationId: string, userId: string) => t.graphql(PARTICIPANT, { id: conversationId, userId }, { key }),
  }

  it('REST GET /conversations/{conversationId}/participants/{userId} returns a participant, field by field but its profile, to any participant', async () => {
    const alice = await t.user('alice')
    const bob = await t.user('bob', { name: 'Bob', pictureUrl: 'https://pics.test/bob.png', profile: 'x' })
    await t.conversation(alice.key, 'c1', ['bob'])
    const res = await getParticipant.REST(alice.key, 'c1', 'bob')
    expect(res.status).toBe(200)
    expect(res.body).toStrictEqual({
      participant: {
        id: 'bob',
        name: 'Bob',
        pictureUrl: 'https://pics.test/bob.png',
        // No profile: it is bob's own (issue 49, M3).
        createdAt: bob.user.createdAt,
        updatedAt: bob.user.updatedAt,
      },
    })
    // The owner too, with its absent fields left out.
    expect((await getParticipant.REST(bob.key, 'c1', 'alice')).body).toStrictEqual({ participant: { id: 'alice', createdAt: iso, updatedAt: iso } })
  })

  it("shows a user's profile to that user only: bob, once added, reads his own; alice, who added him, reads null", async () => {
    const alice = await t.user('alice')
    const bob = await t.user('bob', { profile: 'email:bob@example.com' })
    await t.conversation(alice.key, 'c1', ['bob'])
    const profileAs = async (key: string) => (await getParticipant.REST(key, 'c1', 'bob')).body.participant.profile
    expect(await profileAs(alice.key)).toBeUndefined()
    expect(await profileAs(bob.key)).toBe('email:bob@example.com')
  })

  it('GraphQL conversation.participant returns a participant', async () => {
    const alice = await t.user('alice')
    const bob = await t.user('bob', { name: 'Bob' })
    await t.conversation(alice.key, 'c1', ['bob'])
    const res = await getParticipant.GraphQL(alice.key, 'c1', 'bob')
    expect(res.body).toEqual({
      data: {
        conversation: {
          participant: {
            userId: 'bob',
            name: 'Bob',
            pictureUrl: null,
            profile: null,
            isBot: false,
            createdAt: bob.user.createdAt,
            updatedAt: bob.user.updatedAt,
          },
        },
      },
    })
  })

  it.each(TRANSPORTS)('%s answers 404 ResourceNotFound for a user who does not participate, does not exist, or has left', async (transport) => {
    const alice = await t.user('alice')
    const bob = await t.user('bob')
    await t.user('carol')
    await t.conversation(alice.key, 'c1', ['bob'])
    await t.chat('DELETE', '/conversations/c1/participants/bob', { key: bob.key })
    for (const userId of ['carol', 'nobody', 'bob']) {
      expectRefusal(await getParticipant[transport](alice.key, 'c1', userId), transport, 404, 'ResourceNotFound', ['conversation', 'participant'])
    }
  })

  describe('official client', () => {
    const client = useOfficialClient(t)

    it('returns a participant, the owner included', async () => {
      const [alice, bob] = await client.inConversation('c1', 'alice', 'bob')
      expect(await bob.getParticipant({ conversationId: 'c1', userId: 'alice' })).toEqual({ participant: withoutKey(alice.user) })
      expect(await alice.getParticipant({ conversationId: 'c1', userId: 'bob' })).toEqual({ participant: withoutKey(bob.user) })
    })
  })

  describeAccess(t, 'conversation', getParticipant, ({ conversationId }) => [conversationId, 'alice'])
})
