import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { eq, getTableName, is, Param, Placeholder, SQL, sql } from 'drizzle-orm'
import { drizzle } from 'drizzle-orm/node-postgres'
import pg from 'pg'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import * as pgTables from '../../src/db/postgres/schema.ts'
import type { SqliteDb } from '../../src/db/sqlite/connection.ts'
import { Database } from '../../src/db/sqlite/driver.ts'
import { chatIntegrations, messages, users } from '../../src/db/sqlite/schema.ts'
import { openSqliteStore, type SqliteStore } from '../../src/db/sqlite/store.ts'

// src/db/sqlite/statement.ts (runOften) and src/db/postgres/run.ts read what drizzle's better-sqlite3
// and node-postgres prepared queries keep privately. drizzle is pinned to an exact version; this fails when an upgrade changes what it reads.

const project = join(import.meta.dirname, '../..')
const pinned = (name: string) =>
  JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')).dependencies[name] ??
  JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')).devDependencies[name]
const installed = (name: string) => {
  const entry = createRequire(join(project, 'package.json')).resolve(name)
  let dir = dirname(entry)
  while (!existsSync(join(dir, 'package.json')) || !JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version) dir = dirname(dir)
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version as string
}

let store: SqliteStore
beforeEach(() => {
  store = openSqliteStore(':memory:')
})
afterEach(() => store.close())

describe('drizzle internals the statement cache relies on', () => {
  it('drizzle-orm and drizzle-kit are pinned to exact versions, the ones installed', () => {
    expect(pinned('drizzle-orm')).toMatch(/^\d+\.\d+\.\d+$/)
    expect(pinned('drizzle-kit')).toMatch(/^\d+\.\d+\.\d+$/)
    expect(installed('drizzle-orm')).toBe(pinned('drizzle-orm'))
  })

  it('pg is pinned to an exact version, the one installed, whose client keeps its socket as connection.stream (src/db/postgres/executor.ts corks it)', () => {
    expect(pinned('pg')).toMatch(/^\d+\.\d+\.\d+$/)
    expect(installed('pg')).toBe(pinned('pg'))
    const client = new pg.Client({ connectionString: 'postgres://nobody@127.0.0.1:1/none' })
    const stream = (client as unknown as { connection: { stream: { cork: unknown; uncork: unknown } } }).connection.stream
    expect(typeof stream.cork).toBe('function')
    expect(typeof stream.uncork).toBe('function')
  })

  it('an insert builder keeps its table, rows, conflict and select in its config (src/db/postgres/run.ts: how held inserts join)', () => {
    const db = drizzle.mock() as unknown as SqliteDb
    const insert = db.insert(pgTables.users).values({ integrationId: 'i', id: 'u', createdAt: 'now', updatedAt: 'now' })
    const config = (insert as unknown as { config: { table: unknown; values: unknown[]; onConflict?: unknown; select?: unknown } }).config
    expect(getTableName(config.table as never)).toBe('users')
    expect(config.values).toHaveLength(1)
    expect(config.onConflict).toBeUndefined()
    expect(config.select).toBeFalsy()
    const conflicting = db.insert(pgTables.users).values({ integrationId: 'i', id: 'u', createdAt: 'now', updatedAt: 'now' }).onConflictDoNothing()
    expect((conflicting as unknown as { config: { onConflict?: unknown } }).config.onConflict).toBeDefined()
  })

  it('a prepared query keeps its statement, query, logger, selected fields and join nullability', () => {
    const prepared = store.db
      .select({ user: users, integration: chatIntegrations })
      .from(users)
      .leftJoin(chatIntegrations, eq(chatIntegrations.id, users.integrationId))
      .where(eq(users.id, sql.placeholder('id')))
      .prepare() as unknown as Record<string, unknown>
    expect(prepared.stmt).toBeInstanceOf(Object.getPrototypeOf(new Database(':memory:').prepare('select 1')).constructor)
    const query = prepared.query as { sql: string; params: unknown[] }
    expect(query.sql).toMatch(/^select /)
    expect(is(query.params[0], Placeholder)).toBe(true)
    expect(typeof (prepared.logger as { logQuery: unknown }).logQuery).toBe('function')
    const fields = prepared.fields as { path: string[]; field: unknown }[]
    expect(fields[0]).toEqual({ path: ['user', 'integrationId'], field: users.integrationId })
    expect(getTableName((fields.at(-1)!.field as { table: never }).table)).toBe('chat_integrations')
    expect(prepared.joinsNotNullableMap).toEqual({ users: true, chat_integrations: false })
    expect(prepared.customResultMapper).toBeUndefined()
  })

  it('every bound parameter is written +? (src/db/sqlite/connection.ts: SQLite 3.54 plans a join again per call otherwise)', () => {
    const query = store.db
      .select({ id: users.id, webhookId: chatIntegrations.webhookId })
      .from(users)
      .innerJoin(chatIntegrations, eq(chatIntegrations.id, users.integrationId))
      .where(eq(users.id, sql.placeholder('id')))
    expect(query.toSQL().sql).toMatch(/where "users"\."id" = \+\?$/)
  })

  it('a placeholder of a typed column is a Param holding it with the column as its encoder', () => {
    const prepared = store.db
      .insert(messages)
      .values({
        integrationId: 'i',
        id: 'm',
        conversationId: 'c',
        userId: 'u',
        payload: sql.placeholder('payload') as never,
        createdAt: 'now',
      })
      .prepare() as unknown as { query: { params: unknown[] } }
    const param = prepared.query.params.find((p) => is(p, Param)) as Param
    expect(is(param.value, Placeholder)).toBe(true)
    expect(param.encoder.mapToDriverValue({ a: 1 })).toBe('{"a":1}')
  })

  it('an SQL expression keeps its decoder (mapWith), an aliased one under .sql', () => {
    const mapped = sql`${messages.payload}`.mapWith(messages.payload)
    expect(is(mapped, SQL)).toBe(true)
    expect((mapped as unknown as { decoder: unknown }).decoder).toBe(messages.payload)
    expect((mapped.as('payload') as unknown as { sql: { decoder: unknown } }).sql.decoder).toBe(messages.payload)
  })

  it('a node-postgres prepared query keeps its configs (rows as arrays, and as objects), parameters and selected fields', () => {
    // Nothing is sent: a pool connects on its first query, and preparing builds the SQL only.
    const pool = new pg.Pool({ connectionString: 'postgres://nobody@127.0.0.1:1/none' })
    // PostgreSQL's tables are typed as SQLite's (src/db/postgres/schema.ts), and so is the handle here.
    const db = drizzle(pool) as unknown as SqliteDb
    const prepare = (query: object) => (query as { prepare(name?: string): Record<string, unknown> }).prepare(undefined)
    const prepared = prepare(
      db
        .select({ id: pgTables.messages.id, payload: pgTables.messages.payload })
        .from(pgTables.messages)
        .where(eq(pgTables.messages.id, sql.placeholder('id'))),
    )
    const queryConfig = prepared.queryConfig as { name?: string; text: string; rowMode: string; types: { getTypeParser: unknown } }
    expect(queryConfig).toMatchObject({ name: undefined, rowMode: 'array' })
    expect(queryConfig.text).toMatch(/^select "id", "payload" from "messages" where "messages"."id" = \$1$/)
    expect(typeof queryConfig.types.getTypeParser).toBe('function')
    expect(prepared.rawQueryConfig).toMatchObject({ name: undefined, text: queryConfig.text })
    expect((prepared.rawQueryConfig as { rowMode?: string }).rowMode).toBeUndefined()
    expect(is((prepared.params as unknown[])[0], Placeholder)).toBe(true)
    expect(prepared.fields).toEqual([
      { path: ['id'], field: pgTables.messages.id },
      { path: ['payload'], field: pgTables.messages.payload },
    ])
    expect(prepared.customResultMapper).toBeUndefined()
    const insert = prepare(db.insert(pgTables.users).values({ integrationId: 'i', id: sql.placeholder('id') as never, createdAt: 'now', updatedAt: 'now' }))
    expect(insert.fields).toBeUndefined()
    expect((insert.params as unknown[]).filter((p) => is(p, Param) && is(p.value, Placeholder))).toHaveLength(1)
    void pool.end()
  })
})
