import { Client as ChatClient } from '@botpress/chat'
import { Client } from '@botpress/client'
import { pino } from 'pino'
import { afterEach, describe, expect, it } from 'vitest'
import { signUserKey } from '../../src/auth/user-key.ts'
import { type ConfabServer, createServer } from '../../src/index.ts'
import { eventually } from '../helpers/wait.ts'

// A read replica (READ_REPLICAS) keeps the chat integrations it has read, as the main thread does: a
// personal key set (or cleared) on the main thread must hold on the replica's very next read.

const WEBHOOK = 'replica-keys-webhook'
const bootstrap = { webhookId: WEBHOOK, adminToken: 'bp_pat_replica_keys', workspaceId: 'wkspace_replica_keys' }
const PERSONAL_KEY = 'replica-personal-key-0123456789abcdef'

let confab: ConfabServer | undefined
afterEach(async () => {
  await confab?.close()
  confab = undefined
})

const me = (apiUrl: string, key: string) => fetch(`${apiUrl}/users/me`, { headers: { 'x-user-key': key } })

describe('key modes on a read replica', { timeout: 120_000 }, () => {
  it('a personal key set on the main thread refuses the shared key on the replica at once, and null opens it again', async () => {
    confab = await createServer({ databaseUrl: ':memory:', log: pino({ level: 'silent' }), bootstrap, readReplicas: 1 })
    const server = confab
    const apiUrl = `${server.url}/${WEBHOOK}`
    const admin = new Client({ apiUrl: server.url, token: bootstrap.adminToken, workspaceId: bootstrap.workspaceId })
    const [bot] = (await admin.listBots({})).bots
    const early = await ChatClient.connect({ apiUrl })
    // The replica has read the integration (and kept it) before the key changes.
    await eventually(async () => {
      expect((await me(apiUrl, early.user.key)).status).toBe(200)
      expect(server.replicas?.ready).toBe(1)
    }, 60_000)
    const served = () => server.replicas?.served ?? 0

    await admin.updateBot({ id: bot!.id, integrations: { chat: { configuration: { encryptionKey: PERSONAL_KEY } } } })
    let before = served()
    expect((await me(apiUrl, early.user.key)).status).toBe(401)
    expect(served() - before).toBe(1)
    const signed = await ChatClient.connect({ apiUrl, userId: 'signed', encryptionKey: PERSONAL_KEY })
    before = served()
    expect((await me(apiUrl, signed.user.key)).status).toBe(200)
    expect(served() - before).toBe(1)

    await admin.updateBot({ id: bot!.id, integrations: { chat: { configuration: { encryptionKey: null } } } })
    before = served()
    expect((await me(apiUrl, signed.user.key)).status).toBe(401)
    expect((await me(apiUrl, await signUserKey(early.user.id, 'not the shared key, which no one was shown'))).status).toBe(401)
    expect((await me(apiUrl, early.user.key)).status).toBe(200)
    expect(served() - before).toBe(3)
  })
})
