import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Database } from '../../src/db/sqlite/driver.ts'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { DurabilityClock } from '../../src/db/sqlite/durability.ts'
import { GroupCommit } from '../../src/db/sqlite/group-commit.ts'
import { ReplicaStore, ReplicaWriteRefused } from '../../src/db/sqlite/replica-store.ts'
import { openSqliteStore, type SqliteStore } from '../../src/db/sqlite/store.ts'
import { bootstrap, firstTenant } from '../../src/bootstrap.ts'
import { hasAnyWorkspace } from '../../src/domain/tenancy.ts'
import { eventually } from '../helpers/wait.ts'

// A read replica reads the WAL on a connection of its own, on another thread: it must answer no
// more than the writer's own reads would, so never a commit whose sync is still under way.

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'confab-replicas-'))
})
afterEach(() => {
  rmSync(dir, { recursive: true, force: true })
})

/** Lets every callback already due run: a promise that is not settled after this waits for something. */
const turns = async () => {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve))
}

/** Whether a promise has settled, read at any time. */
const tracked = (promise: Promise<unknown>) => {
  const state = { settled: false }
  void promise.finally(() => (state.settled = true)).catch(() => {})
  return state
}

/** A sync the test ends: what the WAL's fdatasync is to the writer. */
function heldSync() {
  const pending: (() => void)[] = []
  return {
    sync: () => new Promise<void>((resolve) => pending.push(resolve)),
    release: () => pending.splice(0).forEach((resolve) => resolve()),
    get waiting() {
      return pending.length
    },
  }
}

describe('the durability clock', () => {
  function writer(sync: () => Promise<void>) {
    const connection = new Database(join(dir, 'clock.db'))
    connection.pragma('journal_mode = WAL')
    connection.exec('create table notes (id text primary key)')
    const add = connection.prepare('insert into notes (id) values (?)')
    const durability = new DurabilityClock()
    const units = new GroupCommit(connection, { add: async (id: string) => void add.run(id) }, { onEffectError: () => {}, sync, durability })
    // What a replica's thread holds: a view of the same shared memory.
    const replicaView = new DurabilityClock(durability.memory)
    return { units, replicaView, close: () => connection.close() }
  }

  it('holds a replica until the sync after a commit is done', async () => {
    const held = heldSync()
    const w = writer(held.sync)
    const written = tracked(w.units.submit((q) => q.add('a')))
    await eventually(() => expect(held.waiting).toBe(1))
    // The COMMIT has run (a reader would see `a`), its sync has not returned.
    const replicaRead = tracked(w.replicaView.settled())
    await turns()
    expect(replicaRead.settled).toBe(false)
    expect(written.settled).toBe(false)
    held.release()
    await eventually(() => expect(replicaRead.settled && written.settled).toBe(true))
    w.close()
  })

  it('holds nothing when no commit is under way', async () => {
    const w = writer(async () => {})
    await w.units.submit((q) => q.add('a'))
    await expect(w.replicaView.settled()).resolves.toBeUndefined()
    w.close()
  })

  it('lets replicas go when a COMMIT fails: what it wrote is never shown', async () => {
    const held = heldSync()
    const w = writer(held.sync)
    const connection = (w.units as unknown as { connection: Database }).connection
    connection.exec('create table parents (id text primary key); create table children (id text primary key, parent_id text references parents (id))')
    connection.pragma('foreign_keys = ON')
    connection.pragma('defer_foreign_keys = ON')
    const add = connection.prepare('insert into children (id, parent_id) values (?, ?)')
    const failing = new GroupCommit(
      connection,
      { orphan: async () => void add.run('c', 'missing') },
      {
        onEffectError: () => {},
        sync: held.sync,
        durability: new DurabilityClock(w.replicaView.memory),
      },
    )
    await expect(failing.submit((q) => q.orphan())).rejects.toThrow('did not commit')
    expect(held.waiting).toBe(0)
    await expect(w.replicaView.settled()).resolves.toBeUndefined()
    w.close()
  })

  it('counts on past 2^31 commits', async () => {
    const clock = new DurabilityClock()
    new Int32Array(clock.memory).set([2 ** 31 - 1, 2 ** 31 - 1])
    const seq = clock.committing()
    expect(seq).toBe(-(2 ** 31))
    const read = tracked(clock.settled())
    await turns()
    expect(read.settled).toBe(false)
    clock.durable(seq)
    await eventually(() => expect(read.settled).toBe(true))
    // An older commit marked late moves nothing back.
    clock.durable(2 ** 31 - 1)
    await expect(clock.settled()).resolves.toBeUndefined()
  })
})

describe('the replica store', () => {
  let store: SqliteStore
  beforeEach(() => {
    store = openSqliteStore(join(dir, 'confab.db'))
  })
  afterEach(() => store.close())

  it('answers a read only once a commit under way is durable', async () => {
    const replica = new ReplicaStore(store.replicaSource)
    const writerSide = new DurabilityClock(store.replicaSource.durability)
    const seq = writerSide.committing()
    const read = replica.read((q) => q.conversations.find('no-integration', 'no-conversation'))
    const state = tracked(read)
    await turns()
    expect(state.settled).toBe(false)
    writerSide.durable(seq)
    await expect(read).resolves.toBeUndefined()
    await replica.close()
  })

  it('reads what the writer committed, on its own connection', async () => {
    const replica = new ReplicaStore(store.replicaSource)
    expect(await hasAnyWorkspace(replica)).toBe(false)
    await bootstrap(store, firstTenant({ webhookId: 'replica-webhook' }))
    expect(await hasAnyWorkspace(replica)).toBe(true)
    await replica.close()
  })

  it('finds a chat integration by its webhook id until the commit that deletes its bot, however often it was found before', async () => {
    const replica = new ReplicaStore(store.replicaSource)
    const tenant = firstTenant({ webhookId: 'replica-webhook' })
    await bootstrap(store, tenant)
    const byWebhook = (on: ReplicaStore | SqliteStore) => on.read((q) => q.tenancy.chatIntegrationByWebhook('replica-webhook'))
    for (const on of [replica, store, replica, store]) expect((await byWebhook(on))?.botId).toBe(tenant.botId)

    expect(await store.write((q) => q.bots.delete(tenant.workspaceId, tenant.botId))).toBe(true)
    expect(await byWebhook(replica)).toBeUndefined()
    expect(await byWebhook(store)).toBeUndefined()
    await replica.close()
  })

  it('finds no chat integration, inside the unit that deletes its bot, once the bot is deleted', async () => {
    const tenant = firstTenant({ webhookId: 'replica-webhook' })
    await bootstrap(store, tenant)
    expect((await store.read((q) => q.tenancy.chatIntegrationByWebhook('replica-webhook')))?.botId).toBe(tenant.botId)
    const seen = await store.write(async (q) => {
      const before = await q.tenancy.chatIntegrationByWebhook('replica-webhook')
      await q.bots.delete(tenant.workspaceId, tenant.botId)
      return { before: before?.botId, after: await q.tenancy.chatIntegrationByWebhook('replica-webhook') }
    })
    expect(seen).toEqual({ before: tenant.botId, after: undefined })
  })

  it('refuses every write, and tells its owner', async () => {
    let told = 0
    const replica = new ReplicaStore(store.replicaSource, () => told++)
    await expect(replica.write(async () => 'never')).rejects.toBeInstanceOf(ReplicaWriteRefused)
    expect(told).toBe(1)
    await replica.close()
  })
})
