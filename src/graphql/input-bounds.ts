import type { GraphQLArgument, GraphQLField, GraphQLInputField } from 'graphql'
import { getNamedType } from 'graphql'
import { z } from 'zod'
import { maxNameLength } from '../domain/bots/admin/bots.ts'
import { clientIdPattern, clientIdWords } from '../domain/ids.ts'
import { feedbackValues } from '../domain/message-updates.ts'
import { maxTypingTimeoutMs } from '../domain/typing.ts'
import { maxNoteLength } from '../domain/agent-desk.ts'
import { maxPageSize } from './paging.ts'

/*
 * The bounds of an input the domain checks itself, published on the GraphQL field so that the REST
 * layer checks them first, in the caller's words and in the OpenAPI document (rest/request-schema.ts).
 * GraphQL callers still meet the domain's own refusal, in GraphQL's words.
 */

/** An input field's extensions (`bounds`: a zod schema of its JSON value) for an id the client chooses. */
export const clientIdBounds = { bounds: z.string().regex(clientIdPattern, { error: clientIdWords }) }

/** A bot's name, as bots.ts checks it. */
export const botNameBounds = { bounds: z.string().min(1).max(maxNameLength) }

/** A bot's url: where its events are delivered. */
export const botUrlBounds = { bounds: z.url({ protocol: /^https?$/, error: 'an absolute http or https URL' }) }

/** A bot's tags: an object of strings; in an update, null removes a tag. */
export const botTagsBounds = (removable: boolean) => ({ bounds: z.record(z.string(), removable ? z.string().nullable() : z.string()) })

/** How long a typing indicator lasts, in milliseconds. */
export const typingTimeoutBounds = { bounds: z.int().min(1).max(maxTypingTimeoutMs) }

/** A message's feedback. */
export const feedbackValueBounds = { bounds: z.enum(feedbackValues) }

/** A Relay page size (`first`, `last` of a connection), as the connection refuses it otherwise (graphql/paging.ts). */
const pageSize = z.int().min(1).max(maxPageSize)

/** The bounds of an argument or input field, if it has any. */
export function boundsOf(input: GraphQLArgument | GraphQLInputField, field?: GraphQLField<unknown, unknown>): z.ZodType | undefined {
  const declared = (input.extensions as { bounds?: z.ZodType } | undefined)?.bounds
  if (declared) return declared
  const connection = field !== undefined && getNamedType(field.type).name.endsWith('Connection')
  return connection && (input.name === 'first' || input.name === 'last') ? pageSize : undefined
}

/** An agent's note, as agent-desk.ts checks it (it refuses a blank one too). */
export const noteTextBounds = { bounds: z.string().min(1).max(maxNoteLength) }
