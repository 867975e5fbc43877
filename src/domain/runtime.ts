import type { BotRow, BotStateRow, ChatIntegrationRow, ConversationRow, EventRow, MessageRow, UserRow } from '../db/schema.ts'
import type { Queries, Store } from '../db/store.ts'
import type { BotInbox } from './bot-deliveries.ts'
import { customEventType } from './bot-event.ts'
import { botChatContext } from './bots.ts'
import { now } from './clock.ts'
import type { ChatContext } from './context.ts'
import { alreadyExists, invalidPayload, notFound } from './errors.ts'
import { checkEvent, postEvent } from './events.ts'
import { checkMessage, postMessage } from './messages.ts'
import { assertClientId, newId } from './ids.ts'
import { keysetWindow, withCursors } from './paging.ts'
import { joinConversation } from './participants.ts'
import type { SignalPublisher } from './signals.ts'

/**
 * What a runtime verb runs with: the bot a bot API key opened, acting within its own chat
 * integration (another integration's ids are not found). The runtime API is what an
 * @botpress/sdk bot's client calls back while it handles an event.
 */
export interface RuntimeContext {
  store: Store
  bot: BotRow
  integration: ChatIntegrationRow
  signals: SignalPublisher
  bots: BotInbox
}

type Json = Record<string, unknown>

const asChat = (ctx: RuntimeContext, callerId = ctx.bot.id): ChatContext => ({
  ...botChatContext(ctx.store, ctx.integration, ctx.signals, ctx.bots),
  callerId,
})

// ---- inputs -------------------------------------------------------------------------------------

function str(input: Json, name: string): string {
  const value = input[name]
  if (typeof value !== 'string' || value === '') throw invalidPayload(`${name} must be a non-empty string`)
  return value
}

function optStr(input: Json, name: string): string | undefined {
  const value = input[name]
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'string') throw invalidPayload(`${name} must be a string`)
  return value
}

function obj(input: Json, name: string): Json {
  const value = input[name]
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalidPayload(`${name} must be an object`)
  return value as Json
}

/** Refuses what an operation does not take, so that a misspelt field never passes silently. */
function only(input: Json, names: readonly string[]): Json {
  for (const name of Object.keys(input)) {
    if (!names.includes(name)) throw invalidPayload(`the request has a property "${name}" that this operation does not take`)
  }
  return input
}

// ---- shapes (what @botpress/client reads) -------------------------------------------------------

export const runtimeConversation = (row: ConversationRow): Json => ({
  id: row.id,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
  channel: 'channel',
  integration: 'chat',
  tags: {},
})

export const runtimeUser = (row: UserRow): Json => ({
  id: row.id,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
  tags: {},
  ...(row.name !== null ? { name: row.name } : {}),
  ...(row.pictureUrl !== null ? { pictureUrl: row.pictureUrl } : {}),
})

/** The Chat API payload `{type, ...fields}` as the SDK reads it: `type` beside `payload`. */
export function runtimeMessage(row: MessageRow, botId: string): Json {
  const { type, ...payload } = row.payload
  return {
    id: row.id,
    createdAt: row.createdAt,
    updatedAt: row.createdAt,
    type,
    payload,
    direction: row.userId === botId ? 'outgoing' : 'incoming',
    userId: row.userId,
    conversationId: row.conversationId,
    tags: {},
  }
}

export const runtimeEvent = (row: EventRow, status = 'processed'): Json => ({
  id: row.id,
  createdAt: row.createdAt,
  type: customEventType(row.payload),
  payload: row.payload,
  conversationId: row.conversationId,
  userId: row.userId,
  messageId: null,
  status,
  failureReason: null,
})

// ---- conversations, users, participants ---------------------------------------------------------

async function findConversation(ctx: RuntimeContext, q: Queries, id: string): Promise<ConversationRow> {
  const row = await q.conversations.find(ctx.integration.id, id)
  if (!row) throw notFound('Conversation', id)
  return row
}

async function findUser(ctx: RuntimeContext, q: Queries, id: string): Promise<UserRow> {
  const row = await q.users.find(ctx.integration.id, id)
  if (!row) throw notFound('User', id)
  return row
}

/** The id a create operation chooses: `tags.id` (@botpress/client sends no other field for it), else generated. */
function chosenId(input: Json, what: string): string | undefined {
  const tags = input.tags
  if (tags === undefined || tags === null) return undefined
  if (typeof tags !== 'object' || Array.isArray(tags)) throw invalidPayload('tags must be an object')
  const id = (tags as Json).id
  if (id === undefined) return undefined
  if (typeof id !== 'string') throw invalidPayload('tags.id must be a string')
  return assertClientId(id, what)
}

const conversationFields = ['channel', 'tags', 'integrationName', 'properties', 'discriminateByTags'] as const

/**
 * A conversation the bot owns and participates in; its id is `tags.id` when given. `getOrCreate`
 * answers the existing conversation of that id, `create` refuses it (409).
 */
function makeRuntimeConversation(ctx: RuntimeContext, input: Json, orGet: boolean) {
  only(input, conversationFields)
  const chosen = chosenId(input, 'conversation id')
  return ctx.store.write(async (q, after) => {
    if (chosen !== undefined) {
      const existing = await q.conversations.find(ctx.integration.id, chosen)
      if (existing && orGet) return { conversation: runtimeConversation(existing) }
      if (existing) throw alreadyExists('Conversation', chosen)
    }
    const at = now()
    const row = { integrationId: ctx.integration.id, id: chosen ?? newId(), ownerId: ctx.bot.id, createdAt: at, updatedAt: at }
    const inserted = await q.conversations.insert(row)
    if (!inserted) throw alreadyExists('Conversation', row.id)
    await joinConversation(asChat(ctx), q, after, row.id, ctx.bot.id)
    return { conversation: runtimeConversation(inserted) }
  })
}

export const createRuntimeConversation = (ctx: RuntimeContext, input: Json) => makeRuntimeConversation(ctx, input, false)
export const getOrCreateRuntimeConversation = (ctx: RuntimeContext, input: Json) => makeRuntimeConversation(ctx, input, true)

const conversationsSort = 'conversations'

/** The conversations the bot participates in (it joins one when it first posts in it), newest first, 20 a page. */
export function listRuntimeConversations(ctx: RuntimeContext, input: Json) {
  return ctx.store.read(async (q) => {
    const window = keysetWindow(conversationsSort, { after: optStr(input, 'nextToken'), limit: 21, inverted: false })
    const rows = await q.conversations.pageOfParticipant(ctx.integration.id, ctx.bot.id, window)
    const page = withCursors(conversationsSort, rows.slice(0, 20), (c) => [c.createdAt, c.id])
    const last = page.at(-1)
    return { conversations: page.map(runtimeConversation), meta: rows.length > 20 && last ? { nextToken: last.cursor } : {} }
  })
}

const userFields = ['tags', 'integrationName', 'name', 'pictureUrl', 'properties', 'attributes', 'discriminateByTags'] as const

/** A user of the bot's integration; its id is `tags.id` when given (getOrCreate answers the existing one). */
function makeRuntimeUser(ctx: RuntimeContext, input: Json, orGet: boolean) {
  only(input, userFields)
  const chosen = chosenId(input, 'user id')
  const name = optStr(input, 'name') ?? null
  const pictureUrl = optStr(input, 'pictureUrl') ?? null
  return ctx.store.write(async (q) => {
    if (chosen !== undefined) {
      const existing = await q.users.find(ctx.integration.id, chosen)
      if (existing && orGet) return { user: runtimeUser(existing) }
      if (existing) throw alreadyExists('User', chosen)
    }
    const at = now()
    const row = {
      integrationId: ctx.integration.id,
      id: chosen ?? newId(),
      name,
      pictureUrl,
      profile: null,
      isBot: false,
      createdAt: at,
      updatedAt: at,
    }
    const inserted = await q.users.insert(row)
    if (!inserted) throw alreadyExists('User', row.id)
    return { user: runtimeUser(inserted) }
  })
}

export const createRuntimeUser = (ctx: RuntimeContext, input: Json) => makeRuntimeUser(ctx, input, false)
export const getOrCreateRuntimeUser = (ctx: RuntimeContext, input: Json) => makeRuntimeUser(ctx, input, true)

export const getRuntimeConversation = (ctx: RuntimeContext, input: Json) =>
  ctx.store.read(async (q) => ({ conversation: runtimeConversation(await findConversation(ctx, q, str(input, 'id'))) }))

export const getRuntimeUser = (ctx: RuntimeContext, input: Json) =>
  ctx.store.read(async (q) => ({ user: runtimeUser(await findUser(ctx, q, str(input, 'id'))) }))

export function updateRuntimeUser(ctx: RuntimeContext, input: Json) {
  only(input, ['id', 'name', 'pictureUrl', 'tags', 'attributes', 'properties'])
  const name = optStr(input, 'name')
  const pictureUrl = optStr(input, 'pictureUrl')
  return ctx.store.write(async (q) => {
    const id = str(input, 'id')
    await findUser(ctx, q, id)
    const changes = { updatedAt: now(), ...(name !== undefined ? { name } : {}), ...(pictureUrl !== undefined ? { pictureUrl } : {}) }
    const row = await q.users.update(ctx.integration.id, id, changes)
    return { user: runtimeUser(row as UserRow) }
  })
}

export function addRuntimeParticipant(ctx: RuntimeContext, input: Json) {
  only(input, ['id', 'userId'])
  return ctx.store.write(async (q, after) => {
    const conversation = await findConversation(ctx, q, str(input, 'id'))
    const user = await findUser(ctx, q, str(input, 'userId'))
    await joinConversation(asChat(ctx), q, after, conversation.id, user.id)
    return { participant: runtimeUser(user) }
  })
}

export function removeRuntimeParticipant(ctx: RuntimeContext, input: Json) {
  return ctx.store.write(async (q, after) => {
    const conversation = await findConversation(ctx, q, str(input, 'id'))
    const userId = str(input, 'userId')
    if (!(await q.participants.delete(ctx.integration.id, conversation.id, userId))) throw notFound('Participant', userId)
    after(() =>
      ctx.signals.publish(ctx.integration.id, { type: 'participant_removed', conversationId: conversation.id, participantId: userId }),
    )
    return {}
  })
}

const participantsSort = 'participants'

export function listRuntimeParticipants(ctx: RuntimeContext, input: Json) {
  return ctx.store.read(async (q) => {
    const conversation = await findConversation(ctx, q, str(input, 'id'))
    const window = keysetWindow(participantsSort, { after: optStr(input, 'nextToken'), limit: 21, inverted: false })
    const rows = (await q.participants.pages(ctx.integration.id, [conversation.id], window)).get(conversation.id) ?? []
    const page = withCursors(participantsSort, rows.slice(0, 20), (e) => [e.joinedAt, e.joinId])
    const last = page.at(-1)
    return {
      participants: page.map((e) => runtimeUser(e.user)),
      meta: rows.length > 20 && last ? { nextToken: last.cursor } : {},
    }
  })
}

// ---- messages -------------------------------------------------------------------------------------

/**
 * The SDK sends a message's `type` beside its `payload` (`{type: "text", payload: {text}}`): it is
 * stored as the Chat API payload (`{type: "text", text}`), so chat clients see the same message.
 * Its author is the bot, or a user of the integration who participates.
 */
export function createRuntimeMessage(ctx: RuntimeContext, input: Json) {
  only(input, ['payload', 'userId', 'conversationId', 'type', 'tags', 'schedule', 'origin'])
  if (input.schedule !== undefined) throw invalidPayload('scheduled messages are not supported')
  const type = str(input, 'type')
  const { type: _, ...fields } = obj(input, 'payload')
  const conversationId = str(input, 'conversationId')
  const userId = str(input, 'userId')
  const message = checkMessage({ conversationId, payload: { type, ...fields } })
  return ctx.store.write(async (q, after) => {
    await findConversation(ctx, q, conversationId)
    const author = await findUser(ctx, q, userId)
    if (author.id === ctx.bot.id) await joinConversation(asChat(ctx), q, after, conversationId, author.id)
    const row = await postMessage(asChat(ctx, author.id), q, after, message)
    return { message: runtimeMessage(row, ctx.bot.id) }
  })
}

async function findMessage(ctx: RuntimeContext, q: Queries, id: string): Promise<MessageRow> {
  const row = await q.messages.find(ctx.integration.id, id)
  if (!row) throw notFound('Message', id)
  return row
}

export const getRuntimeMessage = (ctx: RuntimeContext, input: Json) =>
  ctx.store.read(async (q) => ({ message: runtimeMessage(await findMessage(ctx, q, str(input, 'id')), ctx.bot.id) }))

/**
 * Replaces a message's payload (its type is kept: the SDK sends the payload without it); tags are
 * not stored. Listeners are not told: the Chat API has no signal for a changed message.
 */
export function updateRuntimeMessage(ctx: RuntimeContext, input: Json) {
  only(input, ['id', 'tags', 'payload'])
  return ctx.store.write(async (q) => {
    const row = await findMessage(ctx, q, str(input, 'id'))
    if (input.payload === undefined) return { message: runtimeMessage(row, ctx.bot.id) }
    const { type: _, ...fields } = obj(input, 'payload')
    const { payload } = checkMessage({ conversationId: row.conversationId, payload: { type: row.payload.type, ...fields } })
    const changed = (await q.messages.updatePayload(ctx.integration.id, row.id, payload)) ?? row
    return { message: runtimeMessage(changed, ctx.bot.id) }
  })
}

export function deleteRuntimeMessage(ctx: RuntimeContext, input: Json) {
  return ctx.store.write(async (q, after) => {
    const row = await findMessage(ctx, q, str(input, 'id'))
    await q.messages.delete(ctx.integration.id, row.id)
    after(() =>
      ctx.signals.publish(ctx.integration.id, { type: 'message_deleted', conversationId: row.conversationId, message: row }),
    )
    return {}
  })
}

const messagesSort = 'messages'

/** A conversation's messages, newest first, 20 a page. */
export function listRuntimeMessages(ctx: RuntimeContext, input: Json) {
  return ctx.store.read(async (q) => {
    const conversation = await findConversation(ctx, q, str(input, 'conversationId'))
    const window = keysetWindow(messagesSort, { after: optStr(input, 'nextToken'), limit: 21, inverted: false })
    const rows = (await q.messages.pages(ctx.integration.id, [conversation.id], window)).get(conversation.id) ?? []
    const page = withCursors(messagesSort, rows.slice(0, 20), (m) => [m.createdAt, m.id])
    const last = page.at(-1)
    return {
      messages: page.map((m) => runtimeMessage(m, ctx.bot.id)),
      meta: rows.length > 20 && last ? { nextToken: last.cursor } : {},
    }
  })
}

// ---- events ---------------------------------------------------------------------------------------

/** A custom event of the bot (or of a participating user): its payload carries its `type`, as the Chat API's do. */
export function createRuntimeEvent(ctx: RuntimeContext, input: Json) {
  only(input, ['type', 'payload', 'schedule', 'conversationId', 'userId', 'workflowId', 'messageId'])
  if (input.schedule !== undefined) throw invalidPayload('scheduled events are not supported')
  const type = str(input, 'type')
  const payload = { type, ...obj(input, 'payload') }
  const conversationId = str(input, 'conversationId')
  const userId = optStr(input, 'userId') ?? ctx.bot.id
  const event = checkEvent({ conversationId, payload })
  return ctx.store.write(async (q, after) => {
    await findConversation(ctx, q, conversationId)
    const author = await findUser(ctx, q, userId)
    if (author.id === ctx.bot.id) await joinConversation(asChat(ctx), q, after, conversationId, author.id)
    return { event: runtimeEvent(await postEvent(asChat(ctx, author.id), q, after, event)) }
  })
}

export const getRuntimeEvent = (ctx: RuntimeContext, input: Json) =>
  ctx.store.read(async (q) => {
    const id = str(input, 'id')
    const row = await q.events.find(ctx.integration.id, id)
    if (!row) throw notFound('Event', id)
    return { event: runtimeEvent(row) }
  })

// ---- states -----------------------------------------------------------------------------------------

/**
 * A named state of a conversation, a user or the bot itself: the `name` key of the same store as
 * `event.state` (`event.state.conversation.counter` is the conversation state named `counter`).
 */
interface StateAddress {
  type: BotStateRow['scope']
  id: string
  name: string
}

function stateAddress(input: Json): StateAddress {
  const type = str(input, 'type')
  if (type !== 'conversation' && type !== 'user' && type !== 'bot') {
    throw invalidPayload(`state type must be conversation, user or bot, got ${JSON.stringify(type)}`)
  }
  return { type, id: str(input, 'id'), name: str(input, 'name') }
}

/** The scope row's id: 404 for a conversation, user or bot not of this bot. */
async function scopeIdOf(ctx: RuntimeContext, q: Queries, at: StateAddress): Promise<string> {
  if (at.type === 'conversation') return (await findConversation(ctx, q, at.id)).id
  if (at.type === 'user') return (await findUser(ctx, q, at.id)).id
  if (at.id !== ctx.bot.id) throw notFound('Bot', at.id)
  return ''
}

const stateOf = (ctx: RuntimeContext, at: StateAddress, payload: unknown, row: { updatedAt: string }): Json => ({
  id: `${at.type}:${at.id}:${at.name}`,
  botId: ctx.bot.id,
  type: at.type,
  name: at.name,
  ...(at.type === 'conversation' ? { conversationId: at.id } : {}),
  ...(at.type === 'user' ? { userId: at.id } : {}),
  payload,
  createdAt: row.updatedAt,
  updatedAt: row.updatedAt,
})

/** Reads, changes and writes one state in a unit: `change` returns the new payload (undefined: removed) and the answer. */
function withState(
  ctx: RuntimeContext,
  input: Json,
  change: (current: Json | undefined, at: StateAddress) => { next?: Json | null; answer: (state: Json) => Json },
) {
  const at = stateAddress(input)
  return ctx.store.write(async (q) => {
    const scopeId = await scopeIdOf(ctx, q, at)
    const row = await q.botStates.findScope(ctx.bot.id, at.type, scopeId)
    const value = row?.value ?? {}
    const current = value[at.name] as Json | undefined
    const { next, answer } = change(current, at)
    const updatedAt = now()
    if (next !== undefined) {
      const changed = { ...value }
      if (next === null) delete changed[at.name]
      else changed[at.name] = next
      await q.botStates.put({ botId: ctx.bot.id, scope: at.type, scopeId, value: changed, updatedAt })
      return answer(stateOf(ctx, at, next, { updatedAt }))
    }
    return answer(stateOf(ctx, at, current, { updatedAt: row?.updatedAt ?? updatedAt }))
  })
}

const missing = (at: StateAddress) => notFound('State', `${at.type}/${at.id}/${at.name}`)

function payloadOf(input: Json): Json {
  only(input, ['type', 'id', 'name', 'payload', 'expiry'])
  return obj(input, 'payload')
}

export function getRuntimeState(ctx: RuntimeContext, input: Json) {
  const at = stateAddress(input)
  return ctx.store.read(async (q) => {
    const scopeId = await scopeIdOf(ctx, q, at)
    const row = await q.botStates.findScope(ctx.bot.id, at.type, scopeId)
    const payload = row?.value[at.name]
    if (!row || payload === undefined) throw missing(at)
    return { state: stateOf(ctx, at, payload, row) }
  })
}

/** Sets (replaces) the state; a null payload removes it. */
export function setRuntimeState(ctx: RuntimeContext, input: Json) {
  only(input, ['type', 'id', 'name', 'payload', 'expiry'])
  const payload = input.payload === null ? null : obj(input, 'payload')
  return withState(ctx, input, () => ({ next: payload, answer: (state) => ({ state }) }))
}

export function getOrSetRuntimeState(ctx: RuntimeContext, input: Json) {
  const payload = payloadOf(input)
  return withState(ctx, input, (current) =>
    current === undefined
      ? { next: payload, answer: (state) => ({ state, meta: { cached: false } }) }
      : { answer: (state) => ({ state, meta: { cached: true } }) },
  )
}

/** Merges the payload's properties into the stored one (shallowly); an unset state is 404. */
export function patchRuntimeState(ctx: RuntimeContext, input: Json) {
  const payload = payloadOf(input)
  return withState(ctx, input, (current, at) => {
    if (current === undefined) throw missing(at)
    return { next: { ...current, ...payload }, answer: (state) => ({ state }) }
  })
}

export function deleteRuntimeState(ctx: RuntimeContext, input: Json) {
  return withState(ctx, input, (current, at) => {
    if (current === undefined) throw missing(at)
    return { next: null, answer: () => ({}) }
  })
}
