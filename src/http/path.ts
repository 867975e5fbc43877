import { DomainError } from '../domain/errors.ts'

/** A percent-decoded path segment; a malformed escape names no resource, so it is a 404. */
export function decodePathSegment(segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    throw new DomainError('ResourceNotFound', `the path segment "${segment}" is not validly percent-encoded`)
  }
}
