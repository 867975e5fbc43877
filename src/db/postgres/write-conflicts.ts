import { WriteConflict } from '../write-conflict.ts'

/*
 * PostgreSQL's constraint violations that a concurrent write of another instance causes: a foreign
 * key to a row deleted meanwhile (23503, e.g. a message into a conversation deleted on another
 * instance after this unit found it), a key made meanwhile (23505). SQLite has one writer at a time
 * and never meets them: its unit sees every write committed before it.
 */
export const racedCodes = new Set(['23503', '23505'])

/** The API's name of what each table holds. */
const entities: Record<string, string> = {
  workspaces: 'Workspace',
  bots: 'Bot',
  chat_integrations: 'Chat integration',
  users: 'User',
  conversations: 'Conversation',
  participants: 'Participant',
  messages: 'Message',
  events: 'Event',
  files: 'File',
}

interface PgError {
  code: string
  detail?: string
  table?: string
}

/** The PostgreSQL error under drizzle's wrapping, if any. */
const pgErrorOf = (error: unknown): PgError | undefined => {
  for (let e: unknown = error; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    if (typeof (e as { code?: unknown }).code === 'string') return e as PgError
  }
  return undefined
}

/** The SQLSTATE of the PostgreSQL error under drizzle's wrapping ('' when none). */
export const codeOf = (error: unknown): string => pgErrorOf(error)?.code ?? ''

/** The id a key's detail names: its last column (every key is the integration's and then the row's id). */
const idOf = (detail: string | undefined): string | undefined => {
  const values = /\)=\((.*)\) (?:is not present|already exists)/.exec(detail ?? '')?.[1]?.split(', ')
  const id = values?.[values.length - 1]
  return id !== undefined && /^[A-Za-z0-9._:-]{1,64}$/.test(id) ? id : undefined
}

const named = (table: string | undefined, id: string | undefined) => `${entities[table ?? ''] ?? 'A resource'}${id ? ` "${id}"` : ''}`

/** The race `error` tells of, in the API's words; undefined when it is not one. */
export function conflictOf(error: unknown): WriteConflict | undefined {
  const found = pgErrorOf(error)
  if (found?.code === '23503') {
    const table = /is not present in table "([^"]+)"/.exec(found.detail ?? '')?.[1]
    // A row still referred to by one being deleted is not a race this unit can lose (cascades delete them).
    if (!table) return undefined
    return new WriteConflict('gone', `${named(table, idOf(found.detail))} does not exist`)
  }
  if (found?.code === '23505') return new WriteConflict('taken', `${named(found.table, idOf(found.detail))} already exists`)
  return undefined
}
