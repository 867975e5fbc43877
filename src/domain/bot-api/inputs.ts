import { z } from 'zod'
import { invalidPayload } from '../errors.ts'
import { assertClientId } from '../ids.ts'

/*
 * The inputs of the bot API verbs: each verb declares the zod schema of what it takes (path, query and
 * body, as @botpress/client sends them) and reads them through `parseInput`. A bad input is an
 * InvalidPayload (400) naming the field; an operation declared `.strict()` refuses a property it does
 * not take, so that a misspelt field never passes silently.
 */

export type Json = Record<string, unknown>

const nonEmpty = 'must be a non-empty string'

/** A non-empty string. */
export const str = z.string({ error: nonEmpty }).min(1, { error: nonEmpty })

/** A string, or absent (null counts as absent). */
export const optStr = z
  .string({ error: 'must be a string' })
  .nullish()
  .transform((value) => value ?? undefined)

/** A JSON object (not null, not an array), passed on as sent. */
export const obj = z.custom<Json>((value) => typeof value === 'object' && value !== null && !Array.isArray(value), {
  error: 'must be an object',
})

/** A property the verb accepts and ignores (or checks itself). */
export const any = z.unknown().optional()

/**
 * The `tags` of a create operation, whose `id` is the id it chooses (@botpress/client sends no other
 * field for it); other tags are accepted and not stored.
 */
export const chosenTags = z
  .object({ id: z.string({ error: 'must be a string' }).optional() }, { error: 'must be an object' })
  .loose()
  .nullish()

/** The id `tags.id` chooses, checked as a client id, else undefined (the id is generated). */
export const chosenId = (tags: z.output<typeof chosenTags>, what: string): string | undefined =>
  tags?.id === undefined ? undefined : assertClientId(tags.id, what)

/** The input as the schema reads it, or InvalidPayload naming the first field at fault. */
export function parseInput<S extends z.ZodType>(schema: S, input: Json): z.output<S> {
  const parsed = schema.safeParse(input)
  if (parsed.success) return parsed.data
  const { issues } = parsed.error
  const issue = issues.find((i) => i.code === 'unrecognized_keys') ?? issues[0]
  if (issue?.code === 'unrecognized_keys') {
    throw invalidPayload(`the request has a property "${issue.keys[0]}" that this operation does not take`)
  }
  const field = issue?.path.join('.') ?? ''
  throw invalidPayload(field === '' ? (issue?.message ?? 'the input is not valid') : `${field} ${issue?.message}`)
}
