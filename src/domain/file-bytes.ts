import type { Store } from '../db/store.ts'

/**
 * Once the rows of files are gone (committed), their bytes go too. A failure leaves bytes no row
 * names, which nothing can serve any more: it is not worth failing the deletion for.
 */
export function removeFileBytes(store: Store, ids: readonly string[]): void {
  if (ids.length > 0) void store.files.remove(ids).catch(() => {})
}
