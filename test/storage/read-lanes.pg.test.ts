import { randomBytes } from 'node:crypto'
import net from 'node:net'
import pg from 'pg'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { ReadLanes } from '../../src/db/postgres/executor.ts'
import { openPostgresStore, type PostgresStore } from '../../src/db/postgres/store.ts'
import { queryOnce } from '../helpers/own-database.ts'
import { eventually } from '../helpers/wait.ts'

/*
 * Reads on PostgreSQL go on lanes (src/db/postgres/executor.ts): connections in pipeline mode,
 * never in a transaction, on which the reads of one turn of the event loop leave together. This file
 * always runs on PostgreSQL (TEST_DATABASE_URL, or 127.0.0.1:5432): it fails if the database does
 * not answer.
 */
const url = process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres'

const lanes: ReadLanes[] = []
const stores: PostgresStore[] = []
const schemas: string[] = []
afterEach(async () => {
  vi.restoreAllMocks()
  await Promise.all([...lanes.splice(0).map((l) => l.close()), ...stores.splice(0).map((s) => s.close())])
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  for (const schema of schemas.splice(0)) await client.query(`drop schema if exists "${schema}" cascade`)
  await client.end()
})

const lanesOf = (count: number) => {
  const made = new ReadLanes(() => new pg.Client({ connectionString: url, pipeline: true }), count)
  lanes.push(made)
  return made
}

const read = (on: ReadLanes, text: string, values: unknown[] = []) => on.query({ text, values }) as Promise<{ rows: Record<string, unknown>[] }>

/** The server process behind the lane that answers next (with one lane, the lane). */
const backendOf = async (on: ReadLanes) => Number((await read(on, 'select pg_backend_pid() as pid')).rows[0]?.pid)

/** Runs `sql` on a connection of its own. */
const aside = <T extends Record<string, unknown>>(sql: string, values: unknown[] = []) => queryOnce<T>(url, sql, values)

/** Counts the writes on each socket of a pg client while `work` runs. */
async function socketWrites(work: () => Promise<unknown>): Promise<number> {
  let writes = 0
  const socket = net.Socket.prototype as unknown as Record<'_write' | '_writev', (...args: unknown[]) => unknown>
  for (const method of ['_write', '_writev'] as const) {
    const original = socket[method]
    vi.spyOn(socket, method).mockImplementation(function (this: net.Socket, ...args: unknown[]) {
      if (this.remotePort === 5432 || this.remotePort === Number(new URL(url).port || 5432)) writes++
      return original.apply(this, args)
    })
  }
  await work()
  vi.restoreAllMocks()
  return writes
}

describe('read lanes', () => {
  it('send the reads of one turn together: one write per lane, each answered with its own rows', async () => {
    const one = lanesOf(1)
    await backendOf(one) // connected
    let answers: { rows: Record<string, unknown>[] }[] = []
    const writes = await socketWrites(async () => {
      answers = await Promise.all(Array.from({ length: 40 }, (_, i) => read(one, 'select $1::int as n', [i])))
    })
    expect(answers.map(({ rows }) => rows[0]?.n)).toEqual(Array.from({ length: 40 }, (_, i) => i))
    expect(writes).toBe(1)
  })

  it('answer a read that fails with its own error, and the reads sent with it with their rows', async () => {
    const one = lanesOf(1)
    const [before, failed, after] = await Promise.allSettled([
      read(one, 'select 1 as n'),
      read(one, 'select 1 / $1::int as n', [0]),
      read(one, 'select 3 as n'),
    ])
    expect(before).toEqual({ status: 'fulfilled', value: expect.objectContaining({ rows: [{ n: 1 }] }) })
    expect(failed).toEqual({ status: 'rejected', reason: expect.objectContaining({ code: '22012' }) })
    expect(after).toEqual({ status: 'fulfilled', value: expect.objectContaining({ rows: [{ n: 3 }] }) })
  })

  it('take the lane with the fewest reads in flight, so that reads go past one that is slow', async () => {
    const two = lanesOf(2)
    const slow = read(two, 'select pg_sleep(30) as slept').then(
      () => 'answered',
      (error: unknown) => error,
    )
    // Both lanes are open once the slow read is under way on one of them.
    const pids = new Set<number>()
    await eventually(async () => {
      pids.add(await backendOf(two))
      expect(pids.size).toBe(1)
      const running = await aside<{ pid: number }>(`select pid from pg_stat_activity where query like 'select pg_sleep(30)%' and state = 'active'`)
      expect(running).toHaveLength(1)
      expect(pids.has(running[0]!.pid)).toBe(false)
    })
    // Reads keep being answered while the slow one runs.
    for (let i = 0; i < 5; i++) expect((await read(two, 'select $1::int as n', [i])).rows).toEqual([{ n: i }])
    await aside(`select pg_cancel_backend(pid) from pg_stat_activity where query like 'select pg_sleep(30)%'`)
    expect(await slow).toMatchObject({ code: '57014' })
  })

  it('replace a lane whose connection ended: its reads fail, the next ones are answered on a new connection', async () => {
    const one = lanesOf(1)
    const first = await backendOf(one)
    await aside('select pg_terminate_backend($1)', [first])
    const next = await eventually(async () => {
      const pid = await backendOf(one)
      expect(pid).not.toBe(first)
      return pid
    })
    expect(next).toEqual(expect.any(Number))
  })

  it('are closed with the store, and refuse reads after', async () => {
    const schema = `test_lanes_${randomBytes(6).toString('hex')}`
    schemas.push(schema)
    const store = await openPostgresStore(url, { schema, poolSize: 2 })
    const seen = await store.read((q) => q.tenancy.chatIntegrationByWebhook('wh'))
    expect(seen).toBeUndefined()
    const lanePids = (
      await aside<{ pid: number }>(
        `select pid from pg_stat_activity where datname = current_database() and query like '%chat_integrations%' and pid <> pg_backend_pid()`,
      )
    ).map(({ pid }) => pid)
    expect(lanePids.length).toBeGreaterThan(0)
    await store.close()
    await eventually(async () => {
      const open = await aside(`select pid from pg_stat_activity where pid = any($1::int[])`, [lanePids])
      expect(open).toEqual([])
    })
    await expect(store.read((q) => q.tenancy.chatIntegrationByWebhook('wh'))).rejects.toThrow()
  })
})
