import type { SQL } from 'drizzle-orm'
import type { Built, On, Query, Run } from '../query.ts'
import type { SqliteDb } from './connection.ts'
import * as tables from './schema.ts'
import { statementsByKey } from '../placeholders.ts'
import { wholeRows } from '../row-maker.ts'
import { runOften, selectedFields } from './statement.ts'

/** A drizzle prepared query as runOften runs it. */
interface Prepared {
  get(values: object): unknown
  all(values: object): unknown[]
  run(values: object): unknown
  values(values: object): unknown[][]
}

/** `one`, answered at once (SQLite runs synchronously): for the TenancyCache, which loads what it keeps so. */
type SyncOne = <V, R>(query: Query<V, R>, values: V) => R | undefined

interface Statement {
  prepared: Prepared
  /** Whether it writes a table the tenancy cache keeps rows of. */
  changesTenancy: boolean
  /** Whether it writes a table a kept participation is read from (participation-cache.ts). */
  changesParticipation: boolean
  /** Rows made whole from SQLite's values and the call's (a query with columns given: see Given). */
  whole: ((row: unknown[], values: Record<string, unknown>) => unknown) | undefined
}

/** Statements that write these tables change what a TenancyCache keeps. */
const tenancyWrite = /^\s*(insert into|update|delete from)\s+"(bots|chat_integrations)"/i

/** Statements that write these tables (or cascade to them) may change a kept participation (participation-cache.ts). */
const participationWrite = /^\s*(insert into|update|delete from)\s+"(bots|chat_integrations|conversations|participants|users)"/i

const changesOf = (sql: string) => ({ changesTenancy: tenancyWrite.test(sql), changesParticipation: participationWrite.test(sql) })

/**
 * The shapes of src/db/queries/ on one SQLite connection: each built once per key with placeholders
 * and prepared on first use (a reading connection never prepares the writes it will not run), then
 * run by runOften. A statement that writes a bot or a chat integration tells `onTenancyChange`, before
 * it runs: that is how the threads' TenancyCache learns to drop what it keeps.
 */
export function sqliteRun(db: SqliteDb, onTenancyChange: () => void, onParticipationChange: () => void = () => {}): Run & { oneNow: SyncOne } {
  const on: On = { db, t: tables }
  const statementOf = statementsByKey<Statement | Built>(on, (query, built, once) => {
    if (once) return built
    const made = built as unknown as { prepare(): Prepared; toSQL(): { sql: string } }
    const prepared = made.prepare()
    return {
      prepared: runOften(prepared),
      ...changesOf(made.toSQL().sql),
      whole: query.given && wholeRows(selectedFields(prepared), query.given.plan(on.t)),
    }
  })

  const isStatement = (made: Statement | Built): made is Statement => 'prepared' in made
  const statement = <V, R>(query: Query<V, R>, values: V): Statement | Built => {
    const made = statementOf(query, values)
    const { changesTenancy, changesParticipation } = isStatement(made) ? made : changesOf((made as unknown as { toSQL(): { sql: string } }).toSQL().sql)
    if (changesTenancy) onTenancyChange()
    if (changesParticipation) onParticipationChange()
    return made
  }

  const oneNow: SyncOne = (query, values) => {
    const made = statement(query, values)
    if (!isStatement(made)) return (made as unknown as { get(): never }).get()
    return made.prepared.get(values as Record<string, unknown>) as never
  }
  return {
    on,
    oneNow,
    one: async (query, values) => oneNow(query, values),
    all: async (query, values) => {
      const made = statement(query, values)
      if (!isStatement(made)) return (made as unknown as { all(): never[] }).all()
      const record = values as Record<string, unknown>
      const { whole } = made
      if (whole) return made.prepared.values(record).map((row) => whole(row, record)) as never[]
      return made.prepared.all(record) as never[]
    },
    run: async (query, values) => {
      const made = statement(query, values)
      if (isStatement(made)) made.prepared.run(values as Record<string, unknown>)
      else (made as unknown as { run(): unknown }).run()
    },
    raw: async (statement: SQL) => db.all<Record<string, unknown>>(statement),
    exec: async (statement: SQL) => db.run(statement).changes,
  }
}
