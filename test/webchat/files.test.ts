import { describe, expect, it } from 'vitest'
import { errorBody, useC1, useTestApp } from '../helpers/app.ts'
import { eventually } from '../helpers/wait.ts'

// createFile — POST /{webhookId}/files {key, size, tags?, …}: an upload slot {file: {id, key, size,
// contentType, url, uploadUrl}}; the bytes are PUT once to uploadUrl (signed, short-lived) and served
// at url (signed, unguessable, no header needed). 1 MB at most; the type comes from the extension.

const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4])

describe('files', () => {
  const t = useTestApp()
  const users = useC1(t, { others: ['eve'] })

  const slot = async (body: Record<string, unknown>, key = users.alice.key) => t.chat('POST', '/files', { key, body })
  const put = (url: string, bytes: Uint8Array) =>
    t.app.fetch(new Request(url, { method: 'PUT', headers: { 'content-type': 'image/png', 'x-amz-tagging': 'public=true' }, body: Buffer.from(bytes) }))
  const get = (url: string) => t.app.fetch(new Request(url))
  /** A slot for a.txt, its two bytes ("hi") put at uploadUrl: the file. */
  const uploadedText = async () => {
    const { file } = (await slot({ key: 'a.txt', size: 2 })).body
    await put(file.uploadUrl, new Uint8Array([104, 105]))
    return file
  }

  it('opens a slot, takes the bytes once at uploadUrl and serves them at url with their content type', async () => {
    const created = await slot({
      key: 'ab12cd-photo.png',
      size: png.byteLength,
      accessPolicies: ['public_content'],
      index: false,
      tags: { source: 'integration', integrationName: 'webchat', conversation: 'c1', user: users.alice.id },
      expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
    })
    expect(created.status).toBe(200)
    const { file } = created.body
    expect(file).toMatchObject({ id: expect.any(String), key: 'ab12cd-photo.png', size: png.byteLength, contentType: 'image/png' })
    expect(file.uploadUrl).toMatch(/\/files\/[^/]+\/upload\?expires=\d+&signature=[\w-]{43}$/)
    expect(file.url).toMatch(/\/files\/[^/]+\/[\w-]{43}\/ab12cd-photo\.png$/)

    expect((await get(file.url)).status).toBe(404)
    const uploaded = await put(file.uploadUrl, png)
    expect(uploaded.status).toBe(200)
    const served = await get(file.url)
    expect(served.status).toBe(200)
    expect(served.headers.get('content-type')).toBe('image/png')
    expect(served.headers.get('x-content-type-options')).toBe('nosniff')
    expect(served.headers.get('content-disposition')).toBe(`inline; filename="ab12cd-photo.png"; filename*=UTF-8''ab12cd-photo.png`)
    expect(new Uint8Array(await served.arrayBuffer())).toEqual(png)

    const again = await put(file.uploadUrl, png)
    expect(again.status).toBe(409)
    expect(await again.json()).toEqual(errorBody(409, 'AlreadyExists'))
  })

  it('serves a type that is not a picture, sound or video as a download under its name (Content-Disposition: attachment)', async () => {
    const { file } = (await slot({ key: 'notes "été".txt', size: 2 })).body
    expect((await put(file.uploadUrl, new Uint8Array([104, 105]))).status).toBe(200)
    const served = await get(file.url)
    expect(served.status).toBe(200)
    expect(served.headers.get('content-disposition')).toBe(`attachment; filename="notes __t__.txt"; filename*=UTF-8''notes%20%22%C3%A9t%C3%A9%22.txt`)
  })

  it('refuses over 1 MB (413) and a type it does not take (415) when the slot is asked for', async () => {
    const big = await slot({ key: 'big.png', size: 1_048_577 })
    expect(big).toMatchObject({ status: 413, body: errorBody(413, 'PayloadTooLarge') })
    expect(big.body.message).toMatch(/1 MB/)
    const html = await slot({ key: 'page.html', size: 10 })
    expect(html).toMatchObject({ status: 415, body: errorBody(415, 'UnsupportedMediaType') })
    const noKey = await slot({ size: 10 })
    expect(noKey.status).toBe(400)
    expect(await slot({ key: 'a.png', size: 10 }, 'not-a-key')).toMatchObject({ status: 401 })
    expect(await slot({ key: 'a.png', size: 10, tags: { conversation: 'c1' } }, users.eve.key)).toMatchObject({ status: 404 })
  })

  // A signature's first character changed: to any other, since a fixed one is its own first character one time in 64.
  const otherThan = (character: string) => (character === 'A' ? 'B' : 'A')

  it('refuses an upload larger than announced, a tampered upload URL and a tampered file URL', async () => {
    const { file } = (await slot({ key: 'a.png', size: 4 })).body
    expect((await put(file.uploadUrl, png)).status).toBe(413)
    const tampered = await put(
      file.uploadUrl.replace(/signature=(.)/, (_all: string, first: string) => `signature=${otherThan(first)}`),
      png.slice(0, 4),
    )
    expect(tampered.status).toBe(403)
    expect(await tampered.json()).toEqual(errorBody(403, 'Forbidden'))
    expect((await put(file.uploadUrl, png.slice(0, 4))).status).toBe(200)
    const guessed = await get(file.url.replace(/\/files\/([^/]+)\/(.)/, (_all: string, id: string, first: string) => `/files/${id}/${otherThan(first)}`))
    expect(guessed.status).toBe(404)
  })

  it("goes with its conversation: the conversation's deletion removes the bytes", async () => {
    const { file } = (await slot({ key: 'a.png', size: png.byteLength, tags: { conversation: 'c1' } })).body
    await put(file.uploadUrl, png)
    expect(await t.store.files.read(file.id)).toEqual(png)
    expect((await t.chat('DELETE', '/conversations/c1', { key: users.alice.key })).status).toBe(200)
    expect((await get(file.url)).status).toBe(404)
    await eventually(async () => expect(await t.store.files.read(file.id)).toBeUndefined())
  })

  it('goes with its user', async () => {
    const file = await uploadedText()
    expect((await get(file.url)).headers.get('content-type')).toBe('text/plain')
    expect((await t.chat('DELETE', '/users/me', { key: users.alice.key })).status).toBe(200)
    expect((await get(file.url)).status).toBe(404)
    await eventually(async () => expect(await t.store.files.read(file.id)).toBeUndefined())
  })

  it('goes with its bot', async () => {
    const file = await uploadedText()
    expect((await t.admin('DELETE', `/bots/${t.tenant!.botId}`)).status).toBe(200)
    await eventually(async () => expect(await t.store.files.read(file.id)).toBeUndefined())
  })

  it('is the createFile mutation in GraphQL', async () => {
    const res = await t.graphql(
      'mutation { createFile(input: { key: "x.jpg", size: 3 }) { file { fileId key size contentType url uploadUrl } } }',
      {},
      { key: users.alice.key },
    )
    expect(res.status).toBe(200)
    expect(res.body.data.createFile.file).toMatchObject({ key: 'x.jpg', size: 3, contentType: 'image/jpeg' })
  })
})
