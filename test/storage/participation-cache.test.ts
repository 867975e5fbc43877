import { type AuthenticatedClient, Client } from '@botpress/chat'
import { pino } from 'pino'
import { afterEach, describe, expect, it } from 'vitest'
import { ParticipationCache } from '../../src/db/sqlite/participation-cache.ts'
import { type ConfabServer, createServer } from '../../src/index.ts'
import { eventually } from '../helpers/wait.ts'

// SQLite's reading connections keep the participations they read (src/db/sqlite/participation-cache.ts):
// whatever changes one (a participant removed, a conversation deleted, the caller's user changed) is
// seen by the next read, on the main thread's reader and on a read replica alike.

const WEBHOOK = 'kept-participations'
let confab: ConfabServer | undefined
afterEach(async () => {
  await confab?.close()
  confab = undefined
})

/** A replica started from src/ compiles the app with tsx first: up to a minute on a loaded machine. */
const replicaStartMs = 60_000
const slow = { timeout: 120_000 }

async function start(readReplicas: number) {
  confab = await createServer({ databaseUrl: ':memory:', log: pino({ level: 'silent' }), bootstrap: { webhookId: WEBHOOK }, readReplicas })
  const apiUrl = `${confab.url}/${WEBHOOK}`
  const alice = await Client.connect({ apiUrl })
  const bob = await Client.connect({ apiUrl })
  const { conversation } = await alice.createConversation({})
  await alice.addParticipant({ conversationId: conversation.id, userId: bob.user.id })
  await bob.createMessage({ conversationId: conversation.id, payload: { type: 'text', text: 'hello' } })
  if (readReplicas > 0) {
    const server = confab
    await eventually(async () => {
      await bob.listMessages({ conversationId: conversation.id })
      expect(server.replicas?.ready).toBe(readReplicas)
    }, replicaStartMs)
  }
  return { apiUrl, alice, bob, conversationId: conversation.id }
}

/** Reads the page a few times, so that the participation is kept (and, with replicas, a replica served them). */
async function readOften(bob: AuthenticatedClient, conversationId: string) {
  const servedBefore = confab?.replicas?.served ?? 0
  for (let i = 0; i < 5; i++) expect((await bob.listMessages({ conversationId })).messages.length).toBeGreaterThan(0)
  return (confab?.replicas?.served ?? 0) - servedBefore
}

const page = 'query ($c: String!) { conversation(id: $c) { messages(first: 20) { edges { node { author { userId name } } } } } }'

async function authorsOnPage(apiUrl: string, key: string, conversationId: string) {
  const response = await fetch(`${apiUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-user-key': key },
    body: JSON.stringify({ query: page, variables: { c: conversationId } }),
  })
  const body = (await response.json()) as { data?: { conversation: { messages: { edges: { node: { author: { userId: string; name: string | null } } }[] } } } }
  if (!body.data) throw new Error(JSON.stringify(body))
  return body.data.conversation.messages.edges.map((edge) => edge.node.author)
}

describe.each([
  ['the main thread', 0],
  ['a read replica', 1],
])('a participation kept by %s', (_where, replicas) => {
  it('is refused at once once the participant is removed (listMessages: 404 ResourceNotFound)', slow, async () => {
    const { alice, bob, conversationId } = await start(replicas)
    const served = await readOften(bob, conversationId)
    if (replicas > 0) expect(served).toBeGreaterThan(0)
    await alice.removeParticipant({ conversationId, userId: bob.user.id })
    const refused = await bob.listMessages({ conversationId }).catch((error: unknown) => error)
    expect(refused).toMatchObject({ code: 404, type: 'ResourceNotFound' })
    // And again, the refusal is not kept either: still refused on the next read.
    await expect(bob.listMessages({ conversationId })).rejects.toMatchObject({ code: 404 })
  })

  it('is refused at once once the conversation is deleted (getConversation and listMessages: 404)', slow, async () => {
    const { alice, bob, conversationId } = await start(replicas)
    await readOften(bob, conversationId)
    await alice.deleteConversation({ id: conversationId })
    await expect(bob.getConversation({ id: conversationId })).rejects.toMatchObject({ code: 404, type: 'ResourceNotFound' })
    await expect(bob.listMessages({ conversationId })).rejects.toMatchObject({ code: 404, type: 'ResourceNotFound' })
  })

  it("shows the caller's user as it is now, once changed (a page's authors)", slow, async () => {
    const { apiUrl, bob, conversationId } = await start(replicas)
    await readOften(bob, conversationId)
    const ownName = async () => (await authorsOnPage(apiUrl, bob.user.key, conversationId)).find((author) => author.userId === bob.user.id)?.name
    expect(await ownName()).toBeNull()
    await bob.updateUser({ name: 'Robert' })
    expect(await ownName()).toBe('Robert')
  })

  it('is read again by a participant added back', slow, async () => {
    const { alice, bob, conversationId } = await start(replicas)
    await readOften(bob, conversationId)
    await alice.removeParticipant({ conversationId, userId: bob.user.id })
    await expect(bob.listMessages({ conversationId })).rejects.toMatchObject({ code: 404 })
    await alice.addParticipant({ conversationId, userId: bob.user.id })
    expect((await bob.listMessages({ conversationId })).messages.length).toBeGreaterThan(0)
  })
})

describe('ParticipationCache', () => {
  const found = { conversation: { id: 'c1' }, participant: { id: 'u1' } } as never

  it('serves a participation kept under the count now, as a copy', () => {
    const cache = new ParticipationCache()
    cache.keep('i', 'c1', 'u1', cache.tag(), found)
    const kept = cache.get('i', 'c1', 'u1')
    expect(kept).toEqual(found)
    expect(kept?.conversation).not.toBe((found as { conversation: object }).conversation)
  })

  it('keeps nothing read before a change, and drops everything at a change and again at its transaction end', () => {
    const cache = new ParticipationCache()
    const before = cache.tag()
    cache.changed()
    cache.keep('i', 'c1', 'u1', before, found)
    expect(cache.get('i', 'c1', 'u1')).toBeUndefined()
    // Read while the writer's transaction is under way: kept, until that transaction ends.
    cache.keep('i', 'c1', 'u1', cache.tag(), found)
    expect(cache.get('i', 'c1', 'u1')).toEqual(found)
    cache.transactionEnded()
    expect(cache.get('i', 'c1', 'u1')).toBeUndefined()
  })

  it('keeps no participation that was not found', () => {
    const cache = new ParticipationCache()
    cache.keep('i', 'c1', 'u1', cache.tag(), { conversation: { id: 'c1' }, participant: undefined } as never)
    expect(cache.get('i', 'c1', 'u1')).toBeUndefined()
  })

  it('is told of changes through memory another thread shares', () => {
    const writer = new ParticipationCache()
    const reader = new ParticipationCache(writer.memory)
    reader.keep('i', 'c1', 'u1', reader.tag(), found)
    writer.changed()
    expect(reader.get('i', 'c1', 'u1')).toBeUndefined()
  })
})
