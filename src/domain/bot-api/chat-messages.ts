import { invalidPayload } from '../errors.ts'
import type { Json } from '../../contracts/bot-api-inputs.ts'

/*
 * How Botpress' chat integration (botpress/botpress, integrations/chat, src/api/message-payload.ts)
 * maps a message between the Chat API and the runtime an @botpress/sdk bot reads and writes. A chat
 * message is a payload `{type, ...fields}` beside its `metadata`; the runtime has the message's
 * `type` beside a `payload` that carries the metadata among the fields. A bloc's items are
 * `{type, ...fields}` in the Chat API and `{type, payload}` in the runtime. Messages are stored as
 * the Chat API has them, so that chat clients and listeners read them unchanged. Custom events go
 * the same way: the user's come to the bot inside the integration's event, the bot's (its action
 * `chat:sendEvent`, actions.ts) reach chat clients with their payload as given.
 */

/** A message as the Chat API holds it. */
export interface ChatMessage {
  payload: Json
  metadata: Json | null
}

/** A message as the runtime holds it. */
export interface RuntimeMessage {
  type: string
  payload: Json
}

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * User → bot: the metadata goes into the payload (left out when the message has none); a bloc keeps
 * its own `type` in the payload, as the integration's spread of the whole payload does.
 */
export function toRuntimeMessage({ payload, metadata }: ChatMessage): RuntimeMessage {
  const inPayload = metadata === null ? {} : { metadata }
  const { type, ...fields } = payload
  if (type !== 'bloc' || !Array.isArray(payload.items)) return { type: String(type), payload: { ...inPayload, ...fields } }
  const items = payload.items.map((item: unknown) => {
    if (!isObject(item)) return item
    const { type: itemType, ...itemFields } = item
    return { type: itemType, payload: itemFields }
  })
  return { type: 'bloc', payload: { ...payload, ...inPayload, items } }
}

/**
 * Bot → user: the payload's `metadata` becomes the message's; a bloc's items `{type, payload}` are
 * flattened to `{type, ...payload}`. The runtime `type` names the kind (a `type` among the payload's
 * fields does not). Metadata or an item payload that is not an object is refused (400), as the
 * integration's message schemas refuse it.
 */
export function toChatMessage({ type, payload }: RuntimeMessage): ChatMessage {
  const { metadata = null, type: _, ...fields } = payload
  if (metadata !== null && !isObject(metadata)) throw invalidPayload('payload.metadata must be an object')
  if (type !== 'bloc' || !Array.isArray(fields.items)) return { payload: { type, ...fields }, metadata }
  const items = fields.items.map((item: unknown, index) => {
    if (!isObject(item)) return item
    const { type: itemType, payload: itemPayload } = item
    if (!isObject(itemPayload)) throw invalidPayload(`payload.items.${index}.payload must be an object`)
    return { type: itemType, ...itemPayload }
  })
  return { payload: { type, ...fields, items }, metadata }
}

/**
 * User → bot, a custom event: the integration's event `custom`, which a bot names `chat:custom`,
 * with the user's payload inside `{userId, conversationId, payload}`.
 */
export const toRuntimeCustomEvent = (event: { userId: string; conversationId: string; payload: Json }) => ({
  type: 'chat:custom',
  payload: { userId: event.userId, conversationId: event.conversationId, payload: event.payload },
})
