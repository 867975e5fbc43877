import { WriteConflict } from '../write-conflict.ts'
import { findInError } from '../wrapped-error.ts'

/*
 * PostgreSQL's constraint violations that a concurrent write of another instance causes: a foreign
 * key to a row deleted meanwhile (23503, e.g. a message into a conversation deleted on another
 * instance after this unit found it), a key made meanwhile (23505). SQLite has one writer at a time
 * and never meets them: its unit sees every write committed before it.
 */
export const racedCodes = new Set(['23503', '23505'])

/** The tables whose rows the API names, each by its singular ("chat_integrations": "Chat integration"); any other's is "A resource". */
const namedTables = new Set(['workspaces', 'bots', 'chat_integrations', 'users', 'conversations', 'participants', 'messages', 'events', 'files'])
const entityOf = (table = '') => (namedTables.has(table) ? `${table[0]?.toUpperCase()}${table.slice(1, -1).replaceAll('_', ' ')}` : 'A resource')

/** The PostgreSQL error under drizzle's wrapping, if any. */
const pgErrorOf = (error: unknown) =>
  findInError(error, (e) => (typeof (e as { code?: unknown }).code === 'string' ? (e as { code: string; detail?: string; table?: string }) : undefined))

/** The SQLSTATE of the PostgreSQL error under drizzle's wrapping ('' when none). */
export const codeOf = (error: unknown): string => pgErrorOf(error)?.code ?? ''

/** What a key's detail names: its table's entity and the id, its last column (every key is the integration's and then the row's id). */
function named(table: string | undefined, detail: string | undefined): string {
  const id = /\)=\((.*)\) (?:is not present|already exists)/
    .exec(detail ?? '')?.[1]
    ?.split(', ')
    .at(-1)
  return `${entityOf(table)}${id !== undefined && /^[A-Za-z0-9._:-]{1,64}$/.test(id) ? ` "${id}"` : ''}`
}

/** The race `error` tells of, in the API's words; undefined when it is not one. */
export function conflictOf(error: unknown): WriteConflict | undefined {
  const found = pgErrorOf(error)
  if (found?.code === '23503') {
    const table = /is not present in table "([^"]+)"/.exec(found.detail ?? '')?.[1]
    // A row still referred to by one being deleted is not a race this unit can lose (cascades delete them).
    return table ? new WriteConflict('gone', `${named(table, found.detail)} does not exist`) : undefined
  }
  return found?.code === '23505' ? new WriteConflict('taken', `${named(found.table, found.detail)} already exists`) : undefined
}
