import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createTestApp, errorBody, type TestApp } from '../helpers/app.ts'

let t: TestApp
beforeEach(() => {
  t = createTestApp()
})
afterEach(() => t.close())

describe('smoke', () => {
  it('creates a user and a conversation', async () => {
    const alice = await t.user('alice', { name: 'Alice' })
    expect(alice.user).toEqual({ id: 'alice', name: 'Alice', createdAt: expect.any(String), updatedAt: expect.any(String) })
    const id = await t.conversation(alice.key, 'c1')
    expect(id).toBe('c1')
    const res = await t.chat('GET', '/conversations/c1/participants', { key: alice.key })
    expect(res.status).toBe(200)
    const unknown = await t.chat('GET', '/conversations/zz/participants', { key: alice.key })
    expect(unknown.body).toEqual(errorBody(404, 'ResourceNotFound'))
  })
})
