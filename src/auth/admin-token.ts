/** The bearer token of an `Authorization: Bearer <token>` header, or undefined. */
export function bearerToken(headers: Headers): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(headers.get('authorization') ?? '')
  return match?.[1]
}
