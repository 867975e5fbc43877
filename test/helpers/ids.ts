/** Ids outside the rule for client-chosen ids (1-64 characters of [A-Za-z0-9._:-]), with what is wrong. */
export const INVALID_IDS: readonly [what: string, id: string][] = [
  ['empty', ''],
  ['65 characters long', 'x'.repeat(65)],
  ['with a space', 'a b'],
  ['with a slash', 'a/b'],
  ['with a non-ASCII letter', 'café'],
  ['with a #', 'c#1'],
]

/** The longest id the rule allows, using every allowed character class. */
export const LONGEST_ID = `Az09._:-${'z'.repeat(56)}`

/** A REST refusal of such an id in the body's `field`: its path, the rule, and what came (a long string unquoted). */
export const invalidIdWords = (field: string, id: string) =>
  `${field}: expected 1-64 characters from [A-Za-z0-9._:-], got ${id.length > 40 ? 'a string' : `the string ${JSON.stringify(id)}`}`
