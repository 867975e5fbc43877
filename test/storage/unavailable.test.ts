import Database from 'better-sqlite3'
import { GraphQLError } from 'graphql'
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { databaseUnavailability } from '../../src/db/unavailable.ts'
import { freePort } from '../helpers/private-services.ts'

/*
 * What says the database is away or full (db/unavailable.ts: 503 or 507), and what does not (a
 * constraint, a bug, a client going away): real errors of the drivers where a test can make them,
 * the server's SQLSTATEs as node-postgres builds them.
 */

const serverError = (code: string, message: string) => Object.assign(new pg.DatabaseError(message, 0, 'error'), { code })

describe('databaseUnavailability', () => {
  it('is unreachable for a connection refused (node-postgres, nothing listening), however it is wrapped', async () => {
    const client = new pg.Client({ host: '127.0.0.1', port: await freePort(), connectionTimeoutMillis: 2000 })
    const refused = await client.connect().then(
      () => undefined,
      (error: unknown) => error,
    )
    expect(databaseUnavailability(refused)).toBe('unreachable')
    // As drizzle wraps a failed query, as GraphQL wraps a resolver's error, as a connection to several addresses fails.
    expect(databaseUnavailability(new Error('Failed query: select 1', { cause: refused }))).toBe('unreachable')
    expect(databaseUnavailability(new GraphQLError('x', { originalError: new Error('Failed query', { cause: refused }) }))).toBe('unreachable')
    expect(databaseUnavailability(Object.assign(new AggregateError([refused], 'connect'), {}))).toBe('unreachable')
  })

  it('is unreachable for the server shutting down, crashing, starting, out of connections, and connection exceptions (class 08)', () => {
    for (const code of ['57P01', '57P02', '57P03', '53300', '08006', '08001', '08P01']) {
      expect(databaseUnavailability(serverError(code, 'x')), code).toBe('unreachable')
    }
  })

  it("is unreachable for node-postgres' own words of a connection lost or not had in time", () => {
    for (const message of [
      'Connection terminated unexpectedly',
      'Connection terminated due to connection timeout',
      'timeout exceeded when trying to connect',
      'Client has encountered a connection error and is not queryable',
    ]) {
      expect(databaseUnavailability(new Error(message)), message).toBe('unreachable')
    }
  })

  it('is full for SQLITE_FULL (a real one: the file may not grow), ENOSPC and PostgreSQL disk_full', () => {
    const db = new Database(':memory:')
    db.exec('create table t (x text)')
    db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true })}`)
    let full: unknown
    try {
      db.prepare('insert into t values (?)').run('x'.repeat(100_000))
    } catch (error) {
      full = error
    }
    db.close()
    expect(databaseUnavailability(full)).toBe('full')
    expect(databaseUnavailability(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }))).toBe('full')
    expect(databaseUnavailability(serverError('53100', 'could not extend file'))).toBe('full')
  })

  it("is nothing for what is the request's or the code's: a constraint, a syntax error, a client that went away, a bug", () => {
    expect(databaseUnavailability(serverError('23505', 'duplicate key value violates unique constraint'))).toBeUndefined()
    expect(databaseUnavailability(serverError('42601', 'syntax error'))).toBeUndefined()
    expect(databaseUnavailability(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }))).toBeUndefined()
    expect(databaseUnavailability(new TypeError("Cannot read properties of undefined (reading 'id')"))).toBeUndefined()
    expect(databaseUnavailability('Connection terminated')).toBeUndefined()
  })
})
