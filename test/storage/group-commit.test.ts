import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { Database } from '../../src/db/sqlite/driver.ts'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { BatchFailed, GroupCommit } from '../../src/db/sqlite/group-commit.ts'
import { openSqliteStore } from '../../src/db/sqlite/store.ts'
import { createTestApp, WEBHOOK_ID } from '../helpers/app.ts'
import { ROOT } from '../helpers/server.ts'
import { eventually } from '../helpers/wait.ts'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'confab-group-commit-'))
})
afterEach(() => {
  rmSync(dir, { recursive: true, force: true })
})

/** A read-only connection of its own on a database file: it sees committed rows only. */
const outsider = (path: string) => new Database(path, { readonly: true })

/**
 * GroupCommit on a real SQLite file (WAL, synchronous = FULL, or NORMAL with a `sync` of the
 * test's), with a two-table schema and named queries of its own, so that a test can make a unit
 * fail anywhere, even at COMMIT.
 */
function groupCommit({ sync }: { sync?: () => Promise<void> } = {}) {
  const path = join(dir, 'units.db')
  const connection = new Database(path)
  connection.pragma('journal_mode = WAL')
  connection.pragma(sync ? 'synchronous = NORMAL' : 'synchronous = FULL')
  connection.pragma('foreign_keys = ON')
  connection.exec(`
    create table parents (id text primary key);
    create table children (id text primary key, parent_id text not null references parents (id));
  `)
  const addParent = connection.prepare('insert into parents (id) values (?)')
  const addChild = connection.prepare('insert into children (id, parent_id) values (?, ?)')
  const q = {
    addParent: async (id: string) => void addParent.run(id),
    addChild: async (id: string, parentId: string) => void addChild.run(id, parentId),
    /** Foreign keys checked at COMMIT: a violation then fails the COMMIT itself. */
    deferForeignKeys: async () => void connection.pragma('defer_foreign_keys = ON'),
  }
  const commits: number[] = []
  const effectErrors: unknown[] = []
  const units = new GroupCommit(connection, q, {
    onEffectError: (error) => effectErrors.push(error),
    onCommit: (count) => commits.push(count),
    sync,
  })
  const reader = outsider(path)
  const committed = () => reader.prepare('select id from parents order by id').pluck().all() as string[]
  return {
    units,
    commits,
    effectErrors,
    committed,
    close: () => {
      reader.close()
      connection.close()
    },
  }
}

describe('group commit — units of work', () => {
  let g: ReturnType<typeof groupCommit>
  beforeEach(() => {
    g = groupCommit()
  })
  afterEach(() => g.close())

  it('runs units submitted together in one transaction, each settling only once it is committed', async () => {
    const seenWhileRunning: string[][] = []
    const seenOnSettling: string[][] = []
    const results = await Promise.all(
      ['a', 'b', 'c'].map((id) =>
        g.units
          .submit(async (q) => {
            await q.addParent(id)
            seenWhileRunning.push(g.committed())
            return id
          })
          .then((value) => {
            seenOnSettling.push(g.committed())
            return value
          }),
      ),
    )
    expect(results).toEqual(['a', 'b', 'c'])
    expect(g.commits).toEqual([3])
    // Nothing is visible outside before the COMMIT, everything once a unit settles.
    expect(seenWhileRunning).toEqual([[], [], []])
    expect(seenOnSettling).toEqual([
      ['a', 'b', 'c'],
      ['a', 'b', 'c'],
      ['a', 'b', 'c'],
    ])
  })

  it('rolls back a unit that throws alone: its rows are gone, its neighbours commit', async () => {
    const outcomes = await Promise.allSettled([
      g.units.submit(async (q) => q.addParent('a')),
      g.units.submit(async (q) => {
        await q.addParent('b1')
        await q.addParent('b2')
        throw new Error('refused by its checks')
      }),
      g.units.submit(async (q) => {
        await q.addParent('d')
        await q.addParent('a') // taken: the statement fails after the unit wrote `d`
      }),
      g.units.submit(async (q) => q.addParent('c')),
    ])
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled'])
    expect((outcomes[1] as PromiseRejectedResult).reason).toEqual(new Error('refused by its checks'))
    expect((outcomes[2] as PromiseRejectedResult).reason).toMatchObject({ code: 'SQLITE_CONSTRAINT_PRIMARYKEY' })
    expect(g.committed()).toEqual(['a', 'c'])
    expect(g.commits).toEqual([2])
  })

  it('fails every unit of a batch whose COMMIT fails, runs none of their effects, and goes on with the next batch', async () => {
    const effects: string[] = []
    const outcomes = await Promise.allSettled([
      g.units.submit(async (q, after) => {
        await q.addParent('a')
        after(() => effects.push('a'))
      }),
      g.units.submit(async (q, after) => {
        await q.deferForeignKeys()
        await q.addChild('orphan', 'nobody')
        after(() => effects.push('orphan'))
      }),
    ])
    for (const outcome of outcomes) {
      expect(outcome.status).toBe('rejected')
      const reason = (outcome as PromiseRejectedResult).reason as BatchFailed
      expect(reason).toBeInstanceOf(BatchFailed)
      expect(reason.cause).toMatchObject({ code: 'SQLITE_CONSTRAINT_FOREIGNKEY' })
    }
    expect(effects).toEqual([])
    expect(g.committed()).toEqual([])
    expect(g.commits).toEqual([])

    await g.units.submit(async (q) => q.addParent('later'))
    expect(g.committed()).toEqual(['later'])
    expect(g.commits).toEqual([1])
  })

  it('runs after-effects once committed, in order; an effect that throws is reported and fails nothing', async () => {
    const effects: string[] = []
    await Promise.all([
      g.units.submit(async (q, after) => {
        await q.addParent('a')
        after(() => effects.push(`a sees ${g.committed().join(',')}`))
        after(() => {
          throw new Error('effect broke')
        })
      }),
      g.units.submit(async (q, after) => {
        await q.addParent('b')
        after(() => effects.push(`b sees ${g.committed().join(',')}`))
      }),
    ])
    expect(effects).toEqual(['a sees a,b', 'b sees a,b'])
    expect(g.effectErrors).toEqual([new Error('effect broke')])
  })

  it('collects the units submitted while a batch runs into the next batch', async () => {
    let next: Promise<void> | undefined
    await g.units.submit(async (q) => {
      await q.addParent('first')
      next = g.units.submit(async (q2) => q2.addParent('second'))
    })
    expect(g.committed()).toEqual(['first'])
    await next
    expect(g.commits).toEqual([1, 1])
    expect(g.committed()).toEqual(['first', 'second'])
  })
})

/** A sync the test ends: each call waits until the test resolves or rejects it. */
function manualSync() {
  const calls: { resolve: () => void; reject: (error: Error) => void }[] = []
  const sync = () => new Promise<void>((resolve, reject) => calls.push({ resolve, reject }))
  return { sync, calls }
}

describe('group commit — the sync off the event loop', () => {
  let g: ReturnType<typeof groupCommit>
  let s: ReturnType<typeof manualSync>
  beforeEach(() => {
    s = manualSync()
    g = groupCommit({ sync: s.sync })
  })
  afterEach(() => g.close())

  it('settles a batch once the sync after its COMMIT is done, runs the next batch meanwhile, and settles batches in commit order', async () => {
    const settled: string[] = []
    const first = g.units.submit(async (q, after) => {
      await q.addParent('a')
      after(() => settled.push('a effects'))
    })
    void first.then(() => settled.push('a'))
    await eventually(() => expect(s.calls).toHaveLength(1))
    // Committed (another connection sees it), not yet durable: not answered, and reads wait.
    expect(g.committed()).toEqual(['a'])
    expect(g.units.durable()).toBeInstanceOf(Promise)
    const second = g.units.submit(async (q) => q.addParent('b'))
    void second.then(() => settled.push('b'))
    await eventually(() => expect(s.calls).toHaveLength(2))
    expect(g.committed()).toEqual(['a', 'b'])
    s.calls[1]?.resolve()
    await new Promise((resolve) => setImmediate(resolve))
    expect(settled).toEqual([])
    s.calls[0]?.resolve()
    await Promise.all([first, second])
    expect(settled).toEqual(['a effects', 'a', 'b'])
    expect(g.commits).toEqual([1, 1])
    expect(g.units.durable()).toBeUndefined()
  })

  it('fails every unit of a batch whose sync fails, runs none of their effects, and goes on with the next batch', async () => {
    const effects: string[] = []
    const failed = g.units.submit(async (q, after) => {
      await q.addParent('a')
      after(() => effects.push('a'))
    })
    await eventually(() => expect(s.calls).toHaveLength(1))
    s.calls[0]?.reject(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }))
    const reason = await failed.then(
      () => undefined,
      (error: unknown) => error,
    )
    expect(reason).toBeInstanceOf(BatchFailed)
    expect((reason as BatchFailed).cause).toMatchObject({ code: 'EIO' })
    expect(effects).toEqual([])
    expect(g.commits).toEqual([])

    const later = g.units.submit(async (q) => q.addParent('later'))
    await eventually(() => expect(s.calls).toHaveLength(2))
    s.calls[1]?.resolve()
    await later
    expect(g.commits).toEqual([1])
  })

  it('is idle once the last batch is synced', async () => {
    let idle = false
    const unit = g.units.submit(async (q) => q.addParent('a'))
    await eventually(() => expect(s.calls).toHaveLength(1))
    void g.units.idle().then(() => {
      idle = true
    })
    await new Promise((resolve) => setImmediate(resolve))
    expect(idle).toBe(false)
    s.calls[0]?.resolve()
    await unit
    await eventually(() => expect(idle).toBe(true))
  })
})

describe('SQLite store', () => {
  const workspace = { id: 'wkspace_1', name: 'One', createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z' }

  it('reads outside units from committed data only', async () => {
    const store = openSqliteStore(join(dir, 'confab.db'))
    let seenInside: boolean | undefined
    await store.write(async (q) => {
      await q.tenancy.insertWorkspace(workspace)
      seenInside = await store.read((r) => r.tenancy.anyWorkspace())
    })
    expect(seenInside).toBe(false)
    expect(await store.read((q) => q.tenancy.anyWorkspace())).toBe(true)
    await store.close()
  })

  it('journals each unit in memory, so that a unit changing many pages still rolls back alone (temp_store = MEMORY)', async () => {
    const path = join(dir, 'confab.db')
    const store = openSqliteStore(path)
    expect(store.db.$client.pragma('temp_store', { simple: true })).toBe(2)
    // Far more pages than the 64 KiB of journal SQLite keeps in memory before it spills to a file.
    const large = store.write(async (q) => {
      for (let i = 0; i < 2000; i++) await q.tenancy.insertWorkspace({ ...workspace, id: `wkspace_large_${i}`, name: 'n'.repeat(200) })
      throw new Error('the large unit fails')
    })
    const neighbour = store.write((q) => q.tenancy.insertWorkspace(workspace))
    await expect(large).rejects.toThrow('the large unit fails')
    await neighbour
    const reader = outsider(path)
    expect(reader.prepare('select id from workspaces').pluck().all()).toEqual([workspace.id])
    reader.close()
    await store.close()
  })

  it('opens `:memory:` as a private temporary file, removed on close', async () => {
    const [one, two] = [openSqliteStore(':memory:'), openSqliteStore(':memory:')]
    await one.write((q) => q.tenancy.insertWorkspace(workspace))
    expect(await two.read((q) => q.tenancy.anyWorkspace())).toBe(false)
    const file = one.db.$client.name
    expect(existsSync(file)).toBe(true)
    await Promise.all([one.close(), two.close()])
    expect(existsSync(dirname(file))).toBe(false)
  })

  it('finishes the units already submitted when closed, and refuses later ones', async () => {
    const store = openSqliteStore(join(dir, 'confab.db'))
    const pending = store.write((q) => q.tenancy.insertWorkspace(workspace))
    const closed = store.close()
    await expect(pending).resolves.toBeUndefined()
    await closed
    await expect(store.write((q) => q.tenancy.anyWorkspace())).rejects.toThrow('the store is closed')
    const reopened = openSqliteStore(join(dir, 'confab.db'))
    expect(await reopened.read((q) => q.tenancy.anyWorkspace())).toBe(true)
    await reopened.close()
  })
})

describe('group commit through the app', () => {
  const text = (value: string) => ({ type: 'text', text: value })

  it('answers concurrent createMessage requests once committed; the one refused in its unit fails alone; the rest is durable', async () => {
    const databaseUrl = join(dir, 'confab.db')
    const t = createTestApp({ databaseUrl, handlers: {} })
    const alice = await t.user('alice')
    const mallory = await t.user('mallory')
    await t.conversation(alice.key, 'c1')
    const reader = outsider(databaseUrl)
    const isCommitted = (id: string) => reader.prepare('select count(*) from messages where id = ?').pluck().get(id) === 1

    const post = (key: string, payload: object) =>
      t.chat('POST', '/messages', { key, body: { conversationId: 'c1', payload } }).then((res) => ({
        ...res,
        committedOnAnswer: res.status === 200 && isCommitted(res.body.message.id),
      }))
    const requests = Array.from({ length: 12 }, (_, i) => post(alice.key, text(`m${i}`)))
    // Refused inside its unit of work (mallory does not participate), and before it (no text).
    requests.splice(5, 0, post(mallory.key, text('let me in')))
    requests.splice(9, 0, post(alice.key, { type: 'text' }))
    const responses = await Promise.all(requests)

    expect(responses.map((res) => res.status)).toEqual([200, 200, 200, 200, 200, 404, 200, 200, 200, 400, 200, 200, 200, 200])
    expect(responses.filter((res) => res.status === 200).every((res) => res.committedOnAnswer)).toBe(true)
    const acknowledged = responses.filter((res) => res.status === 200).map((res) => res.body.message.id as string)
    reader.close()
    await t.close()

    // Reopened: every acknowledged message is there, each with the incoming event recorded for the bot.
    const store = openSqliteStore(databaseUrl)
    const messages = store.db.$client.prepare('select id, user_id from messages order by id').all()
    const incoming = store.db.$client.prepare("select message_id from bot_events where direction = 'incoming' order by message_id").pluck().all()
    expect(messages).toEqual([...acknowledged].sort().map((id) => ({ id, user_id: 'alice' })))
    expect(incoming).toEqual([...acknowledged].sort())
    await store.close()
  }, 60_000)
})

/** The app on a database file behind a real HTTP server, in a child process that the test kills. */
const CHILD_SERVER = `
import { createServer } from 'node:http'
import { createServerAdapter } from '@whatwg-node/server'
import { createTestApp } from './test/helpers/app.ts'
const t = createTestApp({ databaseUrl: process.env.DATABASE_URL })
const alice = await t.user('alice')
await t.conversation(alice.key, 'c1')
const server = createServer(createServerAdapter(t.app.fetch))
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(JSON.stringify({ port: server.address().port, key: alice.key }) + '\\n')
})
`

describe('durability of group-committed writes', () => {
  let child: ChildProcess | undefined
  afterEach(() => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  })

  it('keeps every acknowledged message and its bot event when the server is killed with SIGKILL right after answering', async () => {
    const databaseUrl = join(dir, 'confab.db')
    child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', CHILD_SERVER], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: databaseUrl },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const running = child
    const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()))
    const started = await new Promise<{ port: number; key: string }>((resolve, reject) => {
      let out = ''
      running.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
        out += chunk
        if (out.includes('\n')) resolve(JSON.parse(out.split('\n')[0] as string))
      })
      void exited.then(() => reject(new Error('the server exited before listening')))
    })

    const responses = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        fetch(`http://127.0.0.1:${started.port}/${WEBHOOK_ID}/messages`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-user-key': started.key },
          body: JSON.stringify({ conversationId: 'c1', payload: { type: 'text', text: `m${i}` } }),
        }).then(async (res) => ({ status: res.status, body: (await res.json()) as { message: { id: string } } })),
      ),
    )
    running.kill('SIGKILL')
    await exited
    expect(responses.map((res) => res.status)).toEqual(Array(24).fill(200))
    const acknowledged = responses.map((res) => res.body.message.id).sort()

    const store = openSqliteStore(databaseUrl)
    const stored = store.db.$client.prepare("select id from messages where user_id = 'alice' order by id").pluck().all()
    const incoming = store.db.$client.prepare("select message_id from bot_events where direction = 'incoming' order by message_id").pluck().all()
    expect(stored).toEqual(acknowledged)
    expect(incoming).toEqual(acknowledged)
    await store.close()
  }, 90_000)
})
