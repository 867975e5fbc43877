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
export function databaseFileBytes(db: PgDb): FileBytes {
  return {
    async stage(bytes) {
      return {
        async keep(id) {
          await db
            .insert(fileBytes)
            .select(
              db
                .select({ id: files.id, integrationId: files.integrationId, bytes: sql<Buffer>`${toBuffer(bytes)}::bytea`.as('bytes') })
                .from(files)
                .where(eq(files.id, id)),
            )
            .onConflictDoNothing()
        },
        async discard() {},
      }
    },
    async read(id) {
      const [row] = await db.select({ bytes: fileBytes.bytes }).from(fileBytes).where(eq(fileBytes.id, id))
      return row ? new Uint8Array(row.bytes.buffer, row.bytes.byteOffset, row.bytes.byteLength) : undefined
    },
    async remove(ids) {
      // The rows went with their files already (cascade): this finds nothing left to delete.
      if (ids.length > 0) await db.delete(fileBytes).where(inArray(fileBytes.id, [...ids]))
    },
  }
}

const toBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
