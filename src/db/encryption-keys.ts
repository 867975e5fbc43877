import { eq } from 'drizzle-orm'
import type { PostgresStore } from './postgres/store.ts'
import { chatIntegrations as pgChatIntegrations } from './postgres/schema.ts'
import { type ChatIntegrationRow, chatIntegrations } from './schema.ts'
import type { SqliteStore } from './sqlite/store.ts'
import type { Store } from './store.ts'

/** The keys of a chat integration that a key rotation changes. */
export type EncryptionKeys = Pick<ChatIntegrationRow, 'encryptionKey' | 'personalEncryptionKey' | 'previousEncryptionKeys'>

/**
 * Sets a chat integration's keys (`confab credentials`), on the engine's own connection (both
 * engines' stores keep it as `db`). PostgreSQL: one statement, which every instance sees at its next
 * request. SQLite: in a unit of work, durable when this resolves, through setPersonalEncryptionKey
 * too, which makes every thread of the process forget the integration it kept (a server on the file
 * is another process, and holds its lock: the command runs with the server stopped).
 */
export async function setEncryptionKeys(store: Store, integrationId: string, keys: EncryptionKeys): Promise<void> {
  const { db } = store as Partial<SqliteStore | PostgresStore>
  if (!db) throw new Error('this store has no database connection of its own to change encryption keys on')
  if (store.shared) {
    const postgres = db as PostgresStore['db']
    await postgres.update(pgChatIntegrations).set(keys).where(eq(pgChatIntegrations.id, integrationId))
    return
  }
  const sqlite = db as SqliteStore['db']
  await store.write(async (q) => {
    await q.tenancy.setPersonalEncryptionKey(integrationId, keys.personalEncryptionKey)
    sqlite.update(chatIntegrations).set(keys).where(eq(chatIntegrations.id, integrationId)).run()
  })
}
