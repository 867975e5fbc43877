import { eq, inArray, sql } from 'drizzle-orm'
import type { FileBytes } from '../file-bytes.ts'
import type { PgDb } from './run.ts'
import { fileBytes, pgFiles as files } from './schema.ts'

/**
 * The bytes of uploaded files in the database (`file_bytes`), so that every instance sharing it
 * serves them. A staged upload stays in memory (it is there already) until `keep` writes it under
 * its file's row, which it then goes with (foreign key, cascade): bytes whose file was deleted
 * meanwhile are never written, and none outlive their file.
 */
export const databaseFileBytes = (db: PgDb): FileBytes => ({
  stage: async (bytes) => ({
    async keep(id) {
      const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
      const row = db.select({ id: files.id, integrationId: files.integrationId, bytes: sql<Buffer>`${buffer}::bytea`.as('bytes') }).from(files)
      await db
        .insert(fileBytes)
        .select(row.where(eq(files.id, id)))
        .onConflictDoNothing()
    },
    async discard() {},
  }),
  async read(id) {
    const [row] = await db.select({ bytes: fileBytes.bytes }).from(fileBytes).where(eq(fileBytes.id, id))
    return row && new Uint8Array(row.bytes.buffer, row.bytes.byteOffset, row.bytes.byteLength)
  },
  async remove(ids) {
    // The rows went with their files already (cascade): this finds nothing left to delete.
    if (ids.length > 0) await db.delete(fileBytes).where(inArray(fileBytes.id, [...ids]))
  },
})
