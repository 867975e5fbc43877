import type { z } from 'zod'
import type { chosenTags, Json } from '../../contracts/bot-api-inputs.ts'
import { invalidPayload } from '../errors.ts'
import { assertClientId } from '../ids.ts'

/*
 * How the bot API verbs read their inputs (the schemas of contracts/bot-api-inputs.ts, which the
 * OpenAPI document publishes too): a bad input is an InvalidPayload (400) naming the field.
 */

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
