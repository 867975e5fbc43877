import { ResourceNotFoundError } from '@botpress/chat'
import { describe, expect, it } from 'vitest'
import { errorBody, useC1, useTestApp } from '../helpers/app.ts'
import { describeAccess } from '../helpers/access.ts'
import { expectApiError, useOfficialClient } from '../helpers/listening.ts'
import { expectRefusal, TRANSPORTS } from '../helpers/transports.ts'

const REMOVE_PARTICIPANT = /* GraphQL */ `
  mutation ($input: RemoveParticipantInput!) { removeParticipant(input: $input) { conversationId userId } }
`

describe('removeParticipant', () => {
  const t = useTestApp({ handlers: {} })
  const removeParticipant = {
    REST: (key: string | undefined, conversationId: string, userId: string) =>
      t.chat('DELETE', `/conversations/${conversationId}/participants/${userId}`, { key, body: {} }),
    GraphQL: (key: string | undefined, conversationId: string, userId: string) => t.graphql(REMOVE_PARTICIPANT, { input: { conversationId, userId } }, { key }),
  }
  const answer = { REST: () => ({}), GraphQL: (userId: string) => ({ data: { removeParticipant: { conversationId: 'c1', userId } } }) }

  describe.each(TRANSPORTS)('%s', (transport) => {
    const users = useC1(t, { members: ['bob', 'carol'] })
    const remove = async (key: string, userId: string) => {
      const { status, body } = await removeParticipant[transport](key, 'c1', userId)
      expect({ status, body }).toEqual({ status: 200, body: answer[transport](userId) })
    }

    it('lets a participant remove itself, which then loses access', async () => {
      await remove(users.bob.key, 'bob')
      expect(await t.participantIds(users.alice.key, 'c1')).toEqual(['alice', 'carol'])
      const after = await t.chat('GET', '/conversations/c1', { key: users.bob.key })
      expect({ status: after.status, body: after.body }).toEqual({ status: 404, body: errorBody(404, 'ResourceNotFound') })
      expect((await t.chat('GET', '/conversations', { key: users.bob.key })).body).toEqual({ conversations: [], meta: {} })
    })

    it('lets the owner remove another participant, who can no longer post, and keeps its messages', async () => {
      const message = await t.message(users.carol.key, 'c1')
      await remove(users.alice.key, 'carol')
      expect(await t.participantIds(users.alice.key, 'c1')).toEqual(['alice', 'bob'])
      expect((await t.chat('POST', '/messages', { key: users.carol.key, body: { conversationId: 'c1', payload: { type: 'text', text: 'x' } } })).status).toBe(
        404,
      )
      expect((await t.chat('GET', `/messages/${message.id}`, { key: users.alice.key })).status).toBe(200)
    })

    it('refuses the removal of the owner, by itself or another participant, with 400 InvalidPayload', async () => {
      for (const key of [users.alice.key, users.bob.key]) {
        expectRefusal(await removeParticipant[transport](key, 'c1', 'alice'), transport, 400, 'InvalidPayload', ['removeParticipant'])
      }
      expect(await t.participantIds(users.alice.key, 'c1')).toEqual(['alice', 'bob', 'carol'])
    })

    it('refuses a participant who is not the owner removing someone else with 403 Forbidden', async () => {
      expectRefusal(await removeParticipant[transport](users.bob.key, 'c1', 'carol'), transport, 403, 'Forbidden', ['removeParticipant'])
      expect(await t.participantIds(users.alice.key, 'c1')).toEqual(['alice', 'bob', 'carol'])
    })

    it('answers 404 ResourceNotFound when the owner removes a user who does not participate or does not exist', async () => {
      await t.user('dave')
      for (const userId of ['dave', 'nobody']) {
        expectRefusal(await removeParticipant[transport](users.alice.key, 'c1', userId), transport, 404, 'ResourceNotFound', ['removeParticipant'])
      }
      expect(await t.participantIds(users.alice.key, 'c1')).toEqual(['alice', 'bob', 'carol'])
    })
  })

  it('REST accepts a request without a body', async () => {
    const alice = await t.user('alice')
    await t.user('bob')
    await t.conversation(alice.key, 'c1', ['bob'])
    const res = await t.chat('DELETE', '/conversations/c1/participants/bob', { key: alice.key })
    expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: {} })
    expect(await t.participantIds(alice.key, 'c1')).toEqual(['alice'])
  })

  describe('official client', () => {
    const client = useOfficialClient(t)

    it('lets a participant leave: {} and the conversation is then closed to it', async () => {
      const [alice, bob] = await client.inConversation('c1', 'alice', 'bob')
      expect(await bob.removeParticipant({ conversationId: 'c1', userId: 'bob' })).toEqual({})
      await expectApiError(bob.getConversation({ id: 'c1' }), ResourceNotFoundError, 404, 'ResourceNotFound')
      await expectApiError(alice.getParticipant({ conversationId: 'c1', userId: 'bob' }), ResourceNotFoundError, 404, 'ResourceNotFound')
    })
  })
  describeAccess(t, 'removeParticipant', removeParticipant, ({ conversationId }) => [conversationId, 'bob'], { variant: 'someone else' })
  describeAccess(t, 'removeParticipant', removeParticipant, ({ conversationId }) => [conversationId, 'mallory'], { variant: 'itself' })
})
