import { describe, expect, it } from 'vitest'
import { type Bounded, useBounded } from '../helpers/bounded.ts'

// A user's files may announce at most FILE_STORAGE_PER_USER_BYTES in all (50 MB by default): a slot
// over it is refused with 413 PayloadTooLarge (waiting does not help, deleting does), and another
// user's files are not counted. Each file is also at most 1 MB.

const quota = 3_000

const CREATE_FILE = 'mutation ($key: String!, $size: Int!) { createFile(input: { key: $key, size: $size }) { file { fileId size uploadUrl } } }'

async function createFile(b: Bounded, key: string, size: number) {
  const response = await fetch(`${b.apiUrl}/graphql`, {
    method: 'POST',
    headers: { 'x-user-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ query: CREATE_FILE, variables: { key: 'photo.png', size } }),
  })
  return response.json()
}

const filesOf = async (b: Bounded, userId: string) =>
  Number((await b.t.query<{ n: number }>('select count(*) as n from files where user_id = ?', userId))[0]?.n)

describe('the storage quota per user (FILE_STORAGE_PER_USER_BYTES)', () => {
  const b = useBounded({ storagePerUser: quota })

  it('takes files up to the quota, refuses the one that would pass it with 413, and leaves another user unaffected', async () => {
    const alice = await b.current.t.user('alice')
    const bob = await b.current.t.user('bob')
    expect((await createFile(b.current, alice.key, 2_000)).data.createFile.file.size).toBe(2_000)
    expect((await createFile(b.current, alice.key, 1_000)).data.createFile.file.size).toBe(1_000)

    const refused = await createFile(b.current, alice.key, 1)
    expect(refused).toEqual({
      data: null,
      errors: [
        expect.objectContaining({
          message: "the user's files would take 3001 bytes, over their storage quota of 3000 bytes (FILE_STORAGE_PER_USER_BYTES); 3000 bytes are in use",
          extensions: expect.objectContaining({ type: 'PayloadTooLarge', status: 413 }),
        }),
      ],
    })
    expect(await filesOf(b.current, 'alice')).toBe(2)

    expect((await createFile(b.current, bob.key, 3_000)).data.createFile.file.size).toBe(3_000)
  })

  it('frees the quota when the files go with their conversation', async () => {
    const alice = await b.current.t.user('alice')
    await b.current.t.conversation(alice.key, 'c1')
    const tagged = await fetch(`${b.current.apiUrl}/graphql`, {
      method: 'POST',
      headers: { 'x-user-key': alice.key, 'content-type': 'application/json' },
      body: JSON.stringify({
        query: 'mutation ($size: Int!) { createFile(input: { key: "a.png", size: $size, tags: { conversation: "c1" } }) { file { fileId } } }',
        variables: { size: quota },
      }),
    })
    expect((await tagged.json()).errors).toBeUndefined()
    expect((await createFile(b.current, alice.key, 1)).errors?.[0]?.extensions.type).toBe('PayloadTooLarge')
    const deleted = await fetch(`${b.current.apiUrl}/conversations/c1`, { method: 'DELETE', headers: { 'x-user-key': alice.key } })
    expect(deleted.status).toBe(200)
    expect((await createFile(b.current, alice.key, 1)).data.createFile.file.size).toBe(1)
  })
})

describe('the size of one file', () => {
  const b = useBounded()

  it('is at most 1 MB (1,048,576 bytes)', async () => {
    const alice = await b.current.t.user('alice')
    expect((await createFile(b.current, alice.key, 1_048_576)).data.createFile.file.size).toBe(1_048_576)
    expect((await createFile(b.current, alice.key, 1_048_577)).errors[0].extensions).toEqual(expect.objectContaining({ type: 'PayloadTooLarge', status: 413 }))
  })
})
