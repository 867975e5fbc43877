import { z } from 'zod'

/*
 * What each bot API operation takes: its path, query and body together, as @botpress/client sends
 * them. Pure schemas, no rule of the domain: the operation reads its input through them
 * (domain/bot-api/inputs.ts, naming the field at fault) and the OpenAPI document publishes them
 * (rest/bot-api/routes.ts), so that both say the same. An operation declared `.strict()` refuses a
 * property it does not take, so that a misspelt field never passes silently.
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
export const obj = z
  .custom<Json>((value) => typeof value === 'object' && value !== null && !Array.isArray(value), { error: 'must be an object' })
  .meta({ type: 'object' } as Record<string, unknown>)

/** A property the operation accepts and ignores (or checks itself). */
export const any = z.unknown().optional()

/**
 * The `tags` of a create operation, whose `id` is the id it chooses (@botpress/client sends no other
 * field for it); other tags are accepted and not stored.
 */
export const chosenTags = z
  .object({ id: z.string({ error: 'must be a string' }).optional() }, { error: 'must be an object' })
  .loose()
  .nullish()

const createConversation = z.object({ channel: any, tags: chosenTags, integrationName: any, properties: any, discriminateByTags: any }).strict()

const createUser = z
  .object({ tags: chosenTags, integrationName: any, name: optStr, pictureUrl: optStr, properties: any, attributes: any, discriminateByTags: any })
  .strict()

const countMessage = 'must be a whole number from -1000000000 to 1000000000'

/** Tags a bot sets (a null or empty value removes one): stored on conversations; Confab's own (`chat:…`) are read-only. */
const tagChanges = z.record(z.string(), z.string({ error: 'must be a string or null' }).nullable(), { error: 'must be an object' }).optional()

const byId = z.object({ id: str })
const participant = z.object({ id: str, userId: str })

const stateScopes = ['conversation', 'user', 'bot'] as const
const stateAddress = {
  type: str.pipe(z.enum(stateScopes, { error: (issue) => `must be conversation, user or bot, got ${JSON.stringify(issue.input)}` })),
  id: str,
  name: str,
}
/** The longest state expiry taken: ten years, so that the date it makes is always a date. */
export const maxStateExpiryMs = 10 * 365 * 86_400_000
const expiryMessage = `must be a whole number of milliseconds from 1 to ${maxStateExpiryMs}, or null`
/** A state's expiry: how long it lives unwritten, in ms. */
const expiryMs = z
  .number({ error: expiryMessage })
  .int({ error: expiryMessage })
  .min(1, { error: expiryMessage })
  .max(maxStateExpiryMs, { error: expiryMessage })
/** What set, getOrSet and patch take: the address, the payload and an expiry (null: none; absent: the one it had). */
const stateWrite = <P extends z.ZodType>(payload: P) => z.object({ ...stateAddress, payload, expiry: expiryMs.nullish() }).strict()
const stateMerge = stateWrite(obj)

/** A page's size as @botpress/client sends it (a query string): taken and not followed, pages are 20. */
const pageSize = z.unknown().optional()
const list = { nextToken: optStr, pageSize }

/** The input of each bot API operation, by the operation's name. */
export const botApiInputs = {
  createConversation,
  getOrCreateConversation: createConversation,
  listConversations: z.object({ nextToken: optStr }),
  getConversation: byId,
  createUser,
  getOrCreateUser: createUser,
  getUser: byId,
  updateUser: z.object({ id: str, name: optStr, pictureUrl: optStr, tags: any, attributes: any, properties: any }).strict(),
  listParticipants: z.object({ id: str, nextToken: optStr }),
  addParticipant: participant.strict(),
  removeParticipant: participant,
  createMessage: z.object({ payload: obj, userId: str, conversationId: str, type: str, tags: any, schedule: any, origin: any }).strict(),
  getMessage: byId,
  listMessages: z.object({ conversationId: str, nextToken: optStr }),
  updateMessage: z.object({ id: str, tags: any, payload: obj.optional() }).strict(),
  deleteMessage: byId,
  createEvent: z.object({ type: str, payload: obj, schedule: any, conversationId: str, userId: optStr, workflowId: any, messageId: any }).strict(),
  getEvent: byId,
  getState: z.object(stateAddress),
  setState: stateWrite(obj.nullable()),
  getOrSetState: stateMerge,
  patchState: stateMerge,
  deleteState: z.object(stateAddress),
  setStateExpiry: z.object({ ...stateAddress, expiry: expiryMs.nullable() }).strict(),
  callAction: z.object({ type: str, input: obj }).strict(),
  updateConversation: z.object({ id: str, tags: tagChanges, properties: any, currentTaskId: any }).strict(),
  deleteConversation: byId,
  getParticipant: participant,
  // Filters and orders of the query string: `tags.<name>` (qs' dots), the date range and sort are taken and not followed.
  listUsers: z.object({ ...list, conversationId: optStr }).loose(),
  deleteUser: byId,
  listEvents: z.object({
    ...list,
    conversationId: str,
    userId: optStr,
    type: optStr,
    messageId: optStr,
    workflowId: optStr,
    status: optStr,
  }),
  getOrCreateMessage: z
    .object({ payload: obj, userId: str, conversationId: str, type: str, tags: chosenTags, schedule: any, origin: any, discriminateByTags: any })
    .strict(),
  listTagValues: z.object({
    ...list,
    key: str,
    type: str.pipe(
      z.enum(['user', 'conversation', 'message'], { error: (issue) => `must be user, conversation or message, got ${JSON.stringify(issue.input)}` }),
    ),
  }),
  trackAnalytics: z
    .object({
      name: str.pipe(z.string().max(256, { error: 'must be at most 256 characters' })),
      count: z.number({ error: countMessage }).int({ error: countMessage }).min(-1e9, { error: countMessage }).max(1e9, { error: countMessage }),
    })
    .strict(),
} satisfies Record<string, z.ZodObject>
