import { createHash, createHmac } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { errorBody, useTestApp } from '../helpers/app.ts'

// Issue 49 row 11: the deleted-user tombstone was an unsalted SHA-256 of the id, so a guessable id
// (an email, `customer-123`) was recovered from a copy of the database by trying likely ids. It is now
// an HMAC under a secret key of the integration.

const sha256 = (id: string) => createHash('sha256').update(id).digest('base64url')
const hmac = (key: string, id: string) => createHmac('sha256', key).update(id).digest('base64url')

describe('deleted-user tombstones', () => {
  const t = useTestApp()
  const rows = async () =>
    (await t.query<{ user_digest: string; integration_id: string }>('select integration_id, user_digest from deleted_users')).map((row) => row.user_digest)
  const deleteUser = async (id: string) => {
    const { key } = await t.user(id)
    expect((await t.chat('DELETE', '/users/me', { key })).status).toBe(200)
    return key
  }

  it('are an HMAC of the id under a key of the integration, never its plain digest; one key serves every tombstone', async () => {
    await deleteUser('customer-123')
    await deleteUser('customer-124')
    const stored = await rows()
    const keys = stored.filter((digest) => digest.startsWith('hmac-key:')).map((digest) => digest.slice('hmac-key:'.length))
    expect(keys).toHaveLength(1)
    expect(Buffer.from(keys[0]!, 'base64url')).toHaveLength(32)
    expect(stored.sort()).toEqual([`hmac-key:${keys[0]}`, hmac(keys[0]!, 'customer-123'), hmac(keys[0]!, 'customer-124')].sort())
    // A dictionary of likely ids finds nothing without the key.
    const dictionary = Array.from({ length: 1000 }, (_, n) => sha256(`customer-${n}`))
    expect(stored.filter((digest) => dictionary.includes(digest))).toEqual([])
    expect(stored.some((digest) => digest.includes('customer'))).toBe(false)
  })

  it('still refuse the deleted id, with any key for it', async () => {
    await deleteUser('customer-123')
    const again = await t.chat('POST', '/users/get-or-create', { key: await t.keyFor('customer-123'), body: {} })
    expect(again).toMatchObject({ status: 401, body: errorBody(401, 'Unauthorized') })
    expect((await t.chat('POST', '/users', { body: { id: 'customer-123' } })).status).toBe(409)
    expect((await t.chat('POST', '/users', { body: { id: 'customer-125' } })).status).toBe(200)
  })

  it("an earlier version's SHA-256 tombstone still refuses its id", async () => {
    await deleteUser('someone-else')
    const [row] = await t.query<{ integration_id: string }>('select integration_id from deleted_users limit 1')
    const integrationId = row!.integration_id
    await t.query(
      'insert into deleted_users (integration_id, user_digest, deleted_at) values (?, ?, ?)',
      integrationId,
      sha256('legacy-user'),
      '2025-01-01T00:00:00.000Z',
    )
    const refused = await t.chat('POST', '/users/get-or-create', { key: await t.keyFor('legacy-user'), body: {} })
    expect(refused).toMatchObject({ status: 401, body: errorBody(401, 'Unauthorized') })
    expect((await t.chat('POST', '/users', { body: { id: 'legacy-user' } })).status).toBe(409)
  })
})
