/**
 * RFC 6750 §2.1: `credentials = "Bearer" 1*SP b64token`, the scheme case-insensitive (RFC 9110
 * §11.1), b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"=". Nothing else
 * is a bearer token: a tab, a second token, a comma or any other character makes no credential (401).
 */
const bearer = /^bearer +([A-Za-z0-9\-._~+/]+=*)$/i

/**
 * The token of an `Authorization: Bearer <token>` header value, or undefined. Every spelling of one
 * credential (`bearer T`, `BEARER T`, `Bearer  T`) gives the same token: what it is counted by.
 */
export function bearerToken(authorization: string | undefined): string | undefined {
  return authorization === undefined ? undefined : bearer.exec(authorization)?.[1]
}
