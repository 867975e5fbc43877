import { describe, expect, it } from 'vitest'
import { iso, useTestApp } from '../helpers/app.ts'
import { describeAccess } from '../helpers/access.ts'
import { setClock } from '../helpers/clock.ts'
import { USER_FIELDS } from '../helpers/graphql.ts'
import { useOfficialClient } from '../helpers/listening.ts'
import { expectRefusal } from '../helpers/transports.ts'

const UPDATE_USER = /* GraphQL */ `
  mutation ($input: UpdateUserInput!) { updateUser(input: $input) { user { ${USER_FIELDS} } } }
`

const T0 = '2030-01-01T00:00:00.000Z'
const T1 = '2030-01-01T00:05:00.000Z'

describe('updateUser', () => {
  const t = useTestApp({ handlers: {} })
  /** alice as created at T0, with every profile field set; the clock then reads T1. */
  const aliceAtT0 = async () => {
    setClock(T0)
    const alice = await t.user('alice', { name: 'Alice', pictureUrl: 'https://pics.test/a.png', profile: 'p0' })
    setClock(T1)
    return alice
  }

  describe('REST PUT /users/me', () => {
    it('sets the given fields, clears those given as null (leaving them out), keeps the others and moves updatedAt', async () => {
      const alice = await aliceAtT0()
      const res = await t.chat('PUT', '/users/me', { key: alice.key, body: { name: 'Alicia', pictureUrl: null, profile: 'p1' } })
      expect(res.status).toBe(200)
      expect(res.body).toEqual({ user: { id: 'alice', name: 'Alicia', profile: 'p1', createdAt: T0, updatedAt: T1 } })
      expect(await t.me(alice.key)).toEqual(res.body.user)
    })

    it('changes what the other participants see of the user', async () => {
      const alice = await t.user('alice')
      const bob = await t.user('bob', { name: 'Bob' })
      await t.conversation(alice.key, 'c1', ['bob'])
      await t.chat('PUT', '/users/me', { key: bob.key, body: { name: 'Robert' } })
      const res = await t.chat('GET', '/conversations/c1/participants/bob', { key: alice.key })
      expect(res.body).toEqual({ participant: { ...bob.user, name: 'Robert', updatedAt: iso } })
    })

    it.each([
      ['a property the operation does not take', { id: 'mallory' }, 'the request body has a property "id" that this operation does not take'],
      ['a name that is not a string', { name: 5 }, 'name: expected a string, got the number 5'],
    ])('refuses a body with %s with 400 InvalidPayload, saying so, and changes nothing', async (_what, body, message) => {
      const alice = await t.user('alice', { name: 'Alice' })
      expectRefusal(await t.chat('PUT', '/users/me', { key: alice.key, body }), 'REST', 400, 'InvalidPayload', null, message)
      expect(await t.me(alice.key)).toEqual(alice.user)
    })
  })

  it('GraphQL updateUser sets the given fields, clears those given as null, keeps the others and moves updatedAt', async () => {
    const alice = await aliceAtT0()
    const res = await t.graphql(UPDATE_USER, { input: { name: 'Alicia', pictureUrl: null } }, { key: alice.key })
    expect(res.status).toBe(200)
    const user = { userId: 'alice', name: 'Alicia', pictureUrl: null, profile: 'p0', isBot: false, createdAt: T0, updatedAt: T1 }
    expect(res.body).toEqual({ data: { updateUser: { user } } })
    expect((await t.graphql(`query { me { ${USER_FIELDS} } }`, {}, { key: alice.key })).body).toEqual({ data: { me: user } })
  })

  const updateUser = {
    REST: (key: string | undefined, body: object) => t.chat('PUT', '/users/me', { key, body }),
    GraphQL: (key: string | undefined, input: object) => t.graphql(UPDATE_USER, { input }, { key }),
  }

  describe('official client', () => {
    const client = useOfficialClient(t)

    it('sets the given fields, keeps the absent ones and moves updatedAt; getUser then returns the new user', async () => {
      setClock(T0)
      const alice = await client.connect('alice')
      setClock(T1)
      const updated = await alice.updateUser({ name: 'Alicia', pictureUrl: 'https://pics.test/a.png' })
      expect(updated).toEqual({
        user: { id: 'alice', name: 'Alicia', pictureUrl: 'https://pics.test/a.png', createdAt: T0, updatedAt: T1 },
      })
      const second = await alice.updateUser({ profile: 'p2' })
      expect(second).toEqual({ user: { ...updated.user, profile: 'p2' } })
      expect(await alice.getUser({})).toEqual(second)
    })
  })

  describeAccess(t, 'updateUser', updateUser, () => [{ name: 'X' }], { rules: ['no key', 'unknown user'] })
})
