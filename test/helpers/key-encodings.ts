const base64url = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'

/**
 * The four spellings of one key: an HS256 signature is 32 bytes in 43 base64url characters, whose
 * last one carries 2 bits that decode to nothing. Each verifies as the same key.
 */
export function encodingsOf(key: string): string[] {
  const index = base64url.indexOf(key.at(-1) as string)
  return [0, 1, 2, 3].map((spare) => key.slice(0, -1) + base64url[(index & ~3) | spare])
}
