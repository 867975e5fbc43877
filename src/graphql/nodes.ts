import { DomainError } from '../domain/errors.ts'

/** node(id) answers null for what the caller may not see, as for what does not exist. */
export async function visibleOrNull<T>(load: () => Promise<T>): Promise<T | null> {
  try {
    return await load()
  } catch (error) {
    if (error instanceof DomainError && (error.type === 'ResourceNotFound' || error.type === 'Forbidden')) return null
    throw error
  }
}
