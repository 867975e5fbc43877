import { decodeJwt } from 'jose'
import { describe, expect, it } from 'vitest'
import { ENCRYPTION_KEY, errorBody, useTestApp } from '../helpers/app.ts'

// The web chat's user operations: PUT /users/me with {name, pictureUrl, userData} (userData is the
// Chat API's profile), and generateUserKey — POST /users/key {id, expiresAt?} with x-admin-secret.

describe("the web chat's user operations", () => {
  const t = useTestApp()

  it('PUT /users/me takes userData as the profile (an object is kept as its JSON)', async () => {
    const ada = await t.user('ada')
    const res = await t.chat('PUT', '/users/me', { key: ada.key, body: { name: 'Ada', pictureUrl: 'https://example.com/a.png', userData: { plan: 'pro' } } })
    expect(res.status).toBe(200)
    expect(res.body.user).toMatchObject({ id: 'ada', name: 'Ada', pictureUrl: 'https://example.com/a.png', profile: '{"plan":"pro"}' })
    const got = await t.chat('GET', '/users/me', { key: ada.key })
    expect(got.body.user.profile).toBe('{"plan":"pro"}')
  })

  it('POST /users/key gives the holder of x-admin-secret a key for an existing user, expiring when asked', async () => {
    await t.user('ada')
    const expiresAt = Date.now() + 3_600_000
    const res = await t.chat('POST', '/users/key', { headers: { 'x-admin-secret': ENCRYPTION_KEY }, body: { id: 'ada', expiresAt } })
    expect(res.status).toBe(200)
    expect(decodeJwt(res.body.key)).toMatchObject({ id: 'ada', exp: Math.floor(expiresAt / 1000) })
    expect((await t.chat('GET', '/users/me', { key: res.body.key })).body.user.id).toBe('ada')

    const forever = await t.graphql('mutation { generateUserKey(input: { id: "ada" }) { key } }', {}, { headers: { 'x-admin-secret': ENCRYPTION_KEY } })
    expect(decodeJwt(forever.body.data.generateUserKey.key).exp).toBeUndefined()
  })

  it('refuses a wrong or missing secret (401), an unknown user (404) and a past expiry (400)', async () => {
    await t.user('ada')
    expect(await t.chat('POST', '/users/key', { headers: { 'x-admin-secret': 'nope' }, body: { id: 'ada' } })).toMatchObject({
      status: 401,
      body: errorBody(401, 'Unauthorized'),
    })
    expect(await t.chat('POST', '/users/key', { body: { id: 'ada' } })).toMatchObject({ status: 401 })
    const unknown = await t.chat('POST', '/users/key', { headers: { 'x-admin-secret': ENCRYPTION_KEY }, body: { id: 'nobody' } })
    expect(unknown).toMatchObject({ status: 404, body: errorBody(404, 'ResourceNotFound') })
    const past = await t.chat('POST', '/users/key', { headers: { 'x-admin-secret': ENCRYPTION_KEY }, body: { id: 'ada', expiresAt: 1 } })
    expect(past).toMatchObject({
      status: 400,
      body: { ...errorBody(400, 'InvalidPayload'), message: 'expiresAt must be a time in the future, in milliseconds since the epoch' },
    })
  })
})
