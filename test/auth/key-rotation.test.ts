import { eq } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { signUserKey, verifyUserKeyWithAny } from '../../src/auth/user-key.ts'
import type { ChatIntegrationRow } from '../../src/db/schema.ts'
import { retireOldEncryptionKeys, rotateEncryptionKey } from '../../src/domain/key-rotation.ts'
import { verifyingKeysOf } from '../../src/domain/key-modes.ts'
import { ENCRYPTION_KEY, useTestApp, WEBHOOK_ID } from '../helpers/app.ts'

// An encryption key rotated with an overlap (`confab credentials --rotate-encryption-key`, whose
// command line and server-side effects test/server/credentials.test.ts runs): the stored keys, and
// which of them verify a user key when.

const hour = 3_600_000
const at = new Date('2026-11-27T02:00:00.000Z')

describe('rotateEncryptionKey, retireOldEncryptionKeys: what is stored', () => {
  const t = useTestApp()
  const integration = async () => {
    const { chatIntegrations } = t.tables
    const [row] = await t.db.select().from(chatIntegrations).where(eq(chatIntegrations.webhookId, WEBHOOK_ID))
    return row as ChatIntegrationRow
  }

  it('the new shared key signs; the old one is kept until the overlap ends; a second rotation keeps both; retiring drops them', async () => {
    await t.ready
    const first = await rotateEncryptionKey(t.store, WEBHOOK_ID, 2 * hour, at)
    expect(first).toEqual({ mode: 'shared', key: expect.stringMatching(/^[\w-]{43}$/), overlapEndsAt: new Date(at.getTime() + 2 * hour) })
    expect(await integration()).toMatchObject({
      encryptionKey: first.key,
      personalEncryptionKey: null,
      previousEncryptionKeys: [{ key: ENCRYPTION_KEY, expiresAt: '2026-11-27T04:00:00.000Z' }],
    })
    const second = await rotateEncryptionKey(t.store, WEBHOOK_ID, 3 * hour, new Date(at.getTime() + hour))
    expect((await integration()).previousEncryptionKeys).toEqual([
      { key: ENCRYPTION_KEY, expiresAt: '2026-11-27T04:00:00.000Z' },
      { key: first.key, expiresAt: '2026-11-27T06:00:00.000Z' },
    ])
    expect(await retireOldEncryptionKeys(t.store, WEBHOOK_ID, new Date(at.getTime() + hour))).toBe(2)
    expect(await integration()).toMatchObject({ encryptionKey: second.key, previousEncryptionKeys: null })
  })

  it('in personal mode the personal key is rotated, and the shared key (which signs file URLs) stays', async () => {
    await t.ready
    const { chatIntegrations } = t.tables
    const personal = 'operator-personal-key-0123456789abcdef'
    await t.db.update(chatIntegrations).set({ personalEncryptionKey: personal }).where(eq(chatIntegrations.webhookId, WEBHOOK_ID))
    const rotated = await rotateEncryptionKey(t.store, WEBHOOK_ID, hour, at)
    expect(rotated.mode).toBe('personal')
    expect(await integration()).toMatchObject({
      encryptionKey: ENCRYPTION_KEY,
      personalEncryptionKey: rotated.key,
      previousEncryptionKeys: [{ key: personal, expiresAt: '2026-11-27T03:00:00.000Z' }],
    })
  })
})

describe('a rotated shared key, through the app: what keeps working during the overlap, and after', () => {
  const t = useTestApp()
  const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4])

  it('user keys and file URLs the old key signed work until it is retired; then 401 and 404', async () => {
    const alice = await t.user('alice')
    const { file } = (await t.chat('POST', '/files', { key: alice.key, body: { key: 'photo.png', size: png.byteLength } })).body
    const put = new Request(file.uploadUrl, { method: 'PUT', headers: { 'content-type': 'image/png' }, body: Buffer.from(png) })
    expect((await t.app.fetch(put)).status).toBe(200)

    const { key } = await rotateEncryptionKey(t.store, WEBHOOK_ID, hour)
    expect((await t.chat('GET', '/users/me', { key: alice.key })).status).toBe(200)
    expect((await t.chat('GET', '/users/me', { key: await signUserKey('alice', key) })).status).toBe(200)
    expect((await t.app.fetch(new Request(file.url))).status).toBe(200)

    await retireOldEncryptionKeys(t.store, WEBHOOK_ID)
    expect((await t.chat('GET', '/users/me', { key: alice.key })).status).toBe(401)
    expect((await t.chat('GET', '/users/me', { key: await signUserKey('alice', key) })).status).toBe(200)
    expect((await t.app.fetch(new Request(file.url))).status).toBe(404)
  })
})

describe('verifyingKeysOf, verifyUserKeyWithAny: which keys verify a user key', () => {
  const row = {
    encryptionKey: 'the-current-shared-key',
    personalEncryptionKey: null,
    previousEncryptionKeys: [{ key: 'the-old-key', expiresAt: '2026-11-27T03:00:00.000Z' }],
  } as unknown as ChatIntegrationRow

  it('the signing key first, then an old key until its expiry (exclusive), then the signing key alone', () => {
    expect(verifyingKeysOf(row, new Date('2026-11-27T02:59:59.999Z'))).toEqual(['the-current-shared-key', 'the-old-key'])
    expect(verifyingKeysOf(row, new Date('2026-11-27T03:00:00.000Z'))).toEqual(['the-current-shared-key'])
  })

  it("a key signed by any of the keys verifies; one signed by none is refused with the current key's reason", async () => {
    const keys = ['the-current-shared-key', 'the-old-key']
    expect(await verifyUserKeyWithAny(await signUserKey('ann', 'the-old-key'), keys)).toBe('ann')
    expect(await verifyUserKeyWithAny(await signUserKey('bob', 'the-current-shared-key'), keys)).toBe('bob')
    await expect(verifyUserKeyWithAny(await signUserKey('eve', 'the-old-key'), ['the-current-shared-key'])).rejects.toMatchObject({
      message: 'the user key is not valid for this chat integration',
    })
  })
})
