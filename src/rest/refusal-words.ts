import type { z } from 'zod'

/*
 * A refused REST request told in the caller's words: where (`payload.text`, `pageSize`), what was
 * expected and what came instead, and for a value from a set (a payload kind, a sort field) the
 * values allowed. Never a GraphQL variable, type or input name: REST callers never see those.
 */

type Issue = z.core.$ZodIssue

const article = (noun: string) => (/^[aeiou]/.test(noun) ? `an ${noun}` : `a ${noun}`)

const expectedNames: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
  object: 'an object',
  array: 'a list',
  record: 'an object',
}

/** What a JSON value is, as a caller would name it. */
function described(value: unknown): string {
  if (value === undefined) return 'nothing'
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'a list'
  if (typeof value === 'number') return `the number ${value}`
  if (typeof value === 'string') return value.length > 40 ? 'a string' : `the string ${JSON.stringify(value)}`
  if (typeof value === 'boolean') return `${value}`
  return article(typeof value)
}

const valueAt = (input: unknown, path: PropertyKey[]) =>
  path.reduce<unknown>((value, key) => (value !== null && typeof value === 'object' ? (value as Record<PropertyKey, unknown>)[key] : undefined), input)

const listed = (values: readonly unknown[]) => values.map((value) => String(value)).join(', ')

function wordsOf(issue: Issue, input: unknown, where: string): string {
  const got = valueAt(input, issue.path)
  switch (issue.code) {
    case 'invalid_type': {
      const expected = expectedNames[issue.expected] ?? article(issue.expected)
      return got === undefined ? `${where} is required: expected ${expected}` : `${where}: expected ${expected}, got ${described(got)}`
    }
    case 'invalid_union':
      // A discriminated union that found no kind: the allowed kinds, and what was sent.
      if ('options' in issue && Array.isArray(issue.options)) {
        const expected = `expected one of ${listed(issue.options)}`
        if (got === undefined) return `${where} is required: ${expected}`
        return `${where}: ${typeof got === 'string' ? JSON.stringify(got) : described(got)} is not a known kind; ${expected}`
      }
      {
        // A value of none of several forms (an object or a string): each form's expected type.
        const forms = issue.errors.flatMap((branch) => branch.filter((i) => i.code === 'invalid_type' && i.path.length === 0))
        const expected = [...new Set(forms.map((i) => (i.code === 'invalid_type' ? (expectedNames[i.expected] ?? article(i.expected)) : '')))]
        return forms.length === issue.errors.length
          ? `${where}: expected ${expected.join(' or ')}, got ${described(got)}`
          : `${where}: matches none of its accepted forms`
      }
    case 'invalid_value':
      return `${where}: expected one of ${listed(issue.values)}, got ${described(got)}`
    case 'unrecognized_keys':
      return issue.path.length === 0
        ? `the request body has a property "${issue.keys[0]}" that this operation does not take`
        : `${where} has a property "${issue.keys[0]}" that it does not take`
    case 'too_big':
    case 'too_small': {
      if (issue.origin === 'number' || issue.origin === 'int') {
        const bound = issue.code === 'too_big' ? `at most ${issue.maximum}` : `at least ${issue.minimum}`
        // A query parameter's number arrives as text: it is told as the number it was read as.
        return `${where}: expected a number ${bound}, got ${described(typeof got === 'string' ? Number(got) : got)}`
      }
      if (issue.origin === 'string') {
        const count = Number(issue.code === 'too_big' ? issue.maximum : issue.minimum)
        const bound = `${issue.code === 'too_big' ? 'at most' : 'at least'} ${count} character${count === 1 ? '' : 's'}`
        return `${where}: expected ${bound}, got ${typeof got === 'string' ? got.length : described(got)}`
      }
      return `${where}: ${issue.message}`
    }
    case 'invalid_format':
      // A pattern's or a URL's words are its schema's message (graphql/input-bounds.ts).
      return `${where}: expected ${issue.format === 'regex' || issue.format === 'url' ? issue.message : article(issue.format)}, got ${described(got)}`
    default:
      return `${where}: ${issue.message}`
  }
}

/** The message of a refused request part (`body`, `query` or the path): each issue by its field path. */
export function refusalWords(part: 'body' | 'query' | 'path', error: z.ZodError, input: unknown): string {
  const issues = error.issues.slice(0, 5)
  return issues
    .map((issue) => {
      const path = issue.path.map((key, i) => (typeof key === 'number' ? `[${key}]` : `${i > 0 ? '.' : ''}${String(key)}`)).join('')
      const where = path !== '' ? path : part === 'body' ? 'the request body' : `the ${part}`
      return wordsOf(issue, input, where)
    })
    .join('; ')
}
