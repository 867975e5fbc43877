import { findInError } from './wrapped-error.ts'

/*
 * What a storage failure says about the database rather than the request: it cannot be reached
 * (the server crashed, restarts, fails over, refuses connections), or it has no room left. Either
 * way the request is not at fault and may succeed later: the transports answer 503 or 507 with
 * Retry-After (domain/errors.ts), never 500. Said once here, by the error's code, so that every
 * engine (and a new one) is classified alike.
 */

/** How the database failed a request: `unreachable` (503) or out of space (`full`, 507). */
export type Unavailability = 'unreachable' | 'full'

/** Socket and name-resolution failures of a connection (node's codes). */
const socketCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
])

/**
 * PostgreSQL's SQLSTATEs of a server that is away or cannot take the connection: 57P01–57P03
 * (administrator or crash shutdown, cannot connect now: starting up, shutting down, in recovery)
 * and 53300 (too many connections). Class 08 (connection exceptions) is matched by its prefix.
 */
const postgresCodes = new Set(['57P01', '57P02', '57P03', '53300'])

/** Storage full: SQLite's SQLITE_FULL (its extended codes too), a file system's ENOSPC, PostgreSQL's disk_full (53100). */
const fullCodes = /^(SQLITE_FULL\w*|ENOSPC|EDQUOT|53100)$/

/**
 * node-postgres' own messages for a connection that ended or could not be had (its errors carry no
 * code): the socket closed under a query, a client no longer queryable, the pool's wait for a
 * connection or a connection's own timeout.
 */
const postgresDriverMessages =
  /^(Connection terminated|Client has encountered a connection error and is not queryable|Client was closed and is not queryable|timeout exceeded when trying to connect|timeout expired)/

/** The classification of one error object, its causes aside. */
function classifyOne(error: object): Unavailability | undefined {
  const { code, message } = error as { code?: unknown; message?: unknown }
  // A request body cut off by its client (node's "aborted", ECONNRESET) is the client's going, not the database's.
  if (message === 'aborted') return undefined
  if (typeof code === 'string') {
    if (fullCodes.test(code)) return 'full'
    if (socketCodes.has(code) || postgresCodes.has(code) || /^08[0-9A-Z]{3}$/.test(code)) return 'unreachable'
  }
  if (typeof message === 'string' && postgresDriverMessages.test(message)) return 'unreachable'
  return undefined
}

/** How `error` says the database failed, looking through its wrappers; undefined when it is something else (a constraint, a bug). */
export const databaseUnavailability = (error: unknown): Unavailability | undefined => findInError(error, classifyOne)

/** Whether `error` says the database cannot be reached (connection refused, reset or ended; the server starting, stopping or full of connections). */
export const isDatabaseUnavailable = (error: unknown): boolean => databaseUnavailability(error) === 'unreachable'

/** Whether `error` says the database's storage is full (SQLITE_FULL, ENOSPC, PostgreSQL's disk_full). */
export const isStorageFull = (error: unknown): boolean => databaseUnavailability(error) === 'full'
