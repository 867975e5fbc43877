/*
 * A conservative estimate of the entropy of a secret an operator chose (CONFAB_ENCRYPTION_KEY,
 * CONFAB_ADMIN_TOKEN): the length times the bits of the smallest alphabet class its characters
 * fit (hex 4 bits a character, base64url 6, …), and none at all for a string of low variety (one
 * character, a short unit repeated, or a few characters used over and over). It never credits a
 * string with more than a random draw from that alphabet would hold, so a word or a phrase counts
 * for much less than its length suggests, and `openssl rand -hex 32` counts for exactly 256 bits.
 */

/** The size of the alphabet `secret` is drawn from, by the character classes it uses. */
function alphabetSize(secret: string): number {
  if (/^[0-9a-f]+$/.test(secret) || /^[0-9A-F]+$/.test(secret)) return 16
  const lower = /[a-z]/.test(secret) ? 26 : 0
  const upper = /[A-Z]/.test(secret) ? 26 : 0
  const digits = /[0-9]/.test(secret) ? 10 : 0
  const others = secret.replace(/[A-Za-z0-9]/g, '')
  // base64url's `-_` (or base64's `+/=`) add 2 or 3 characters; any other symbol, the 32 printable ones.
  const symbols = others === '' ? 0 : /^[-_]+$/.test(others) ? 2 : /^[+/=]+$/.test(others) ? 3 : 32
  return lower + upper + digits + symbols
}

/** Shannon entropy of the characters' frequencies in `secret`, in bits per character. */
function observedBitsPerCharacter(secret: string): number {
  const counts = new Map<string, number>()
  for (const character of secret) counts.set(character, (counts.get(character) ?? 0) + 1)
  let bits = 0
  for (const count of counts.values()) bits -= (count / secret.length) * Math.log2(count / secret.length)
  return bits
}

/** True when `secret` is a shorter unit repeated (`abcabcabc`, `secretsecret`). */
const repeatsAUnit = (secret: string) => /^(.+)\1+$/s.test(secret)

/** The estimated entropy of `secret` in bits (0 for one of low variety). */
export function estimatedEntropyBits(secret: string): number {
  if (secret.length === 0 || repeatsAUnit(secret)) return 0
  const perCharacter = Math.log2(alphabetSize(secret))
  // A random draw uses most of its alphabet evenly (32 random hex characters: at least 2.7 of 4 bits
  // observed in 300,000 draws); a string that uses a few characters over and over is no random draw.
  if (observedBitsPerCharacter(secret) < perCharacter / 2) return 0
  return Math.floor([...secret].length * perCharacter)
}
