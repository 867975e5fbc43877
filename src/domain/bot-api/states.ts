import type { BotStateRow, StateExpiry } from '../../db/schema.ts'
import type { Queries } from '../../db/store.ts'
import { now } from '../clock.ts'
import { notFound } from '../errors.ts'
import { expiryAfterWrite, expiryColumns, hasExpired, liveExpiries, liveValue } from '../bots/chat/state-expiry.ts'
import { type BotApiContext, findConversation, findUser } from './context.ts'
import { type Json, botApiInputs } from '../../contracts/bot-api-inputs.ts'
import { parseInput } from './inputs.ts'

/**
 * A named state of a conversation, a user or the bot itself: the `name` key of the same store as
 * `event.state` (`event.state.conversation.counter` is the conversation state named `counter`).
 */
interface StateAddress {
  type: BotStateRow['scope']
  id: string
  name: string
}

/** The scope row's id: 404 for a conversation, user or bot not of this bot. */
async function scopeIdOf(ctx: BotApiContext, q: Queries, at: StateAddress): Promise<string> {
  if (at.type === 'conversation') return (await findConversation(ctx, q, at.id)).id
  if (at.type === 'user') return (await findUser(ctx, q, at.id)).id
  if (at.id !== ctx.bot.id) throw notFound('Bot', at.id)
  return ''
}

const stateOf = (ctx: BotApiContext, at: StateAddress, payload: unknown, row: { updatedAt: string }, expiry?: StateExpiry): Json => ({
  id: `${at.type}:${at.id}:${at.name}`,
  botId: ctx.bot.id,
  type: at.type,
  name: at.name,
  ...(at.type === 'conversation' ? { conversationId: at.id } : {}),
  ...(at.type === 'user' ? { userId: at.id } : {}),
  payload,
  createdAt: row.updatedAt,
  updatedAt: row.updatedAt,
  ...(expiry ? { expiry: expiry.expiry, expiresAt: expiry.expiresAt } : {}),
})

/** What a change of one state does: its new payload (undefined: kept, null: removed), its expiry (see expiryAfterWrite) and the answer. */
interface StateChange {
  next?: Json | null
  expiry?: number | null
  answer: (state: Json) => Json
}

/**
 * Reads, changes and writes one state in a unit (its scope's expired states dropped as it goes):
 * `change` sees the live payload (undefined when unset or expired).
 */
function withState(ctx: BotApiContext, at: StateAddress, change: (current: Json | undefined) => StateChange) {
  return ctx.store.write(async (q) => {
    const scopeId = await scopeIdOf(ctx, q, at)
    const row = await q.botStates.findScope(ctx.bot.id, at.type, scopeId)
    const clock = new Date(now())
    const time = clock.toISOString()
    const value = row ? liveValue(row, time) : {}
    const current = value[at.name] as Json | undefined
    const { next, expiry, answer } = change(current)
    if (next === undefined && expiry === undefined) {
      return answer(stateOf(ctx, at, current, { updatedAt: row?.updatedAt ?? time }, row?.expiries?.[at.name]))
    }
    const changed = { ...value }
    const expiries = row ? liveExpiries(row, value, time) : {}
    const written = next === undefined ? current : next
    if (written === null) {
      delete changed[at.name]
      delete expiries[at.name]
    } else {
      changed[at.name] = written
      const after = expiryAfterWrite(expiries[at.name], expiry, clock)
      if (after) expiries[at.name] = after
      else delete expiries[at.name]
    }
    await q.botStates.write({ botId: ctx.bot.id, scope: at.type, scopeId, value: changed, updatedAt: time, ...expiryColumns(expiries) })
    return answer(stateOf(ctx, at, written, { updatedAt: time }, expiries[at.name]))
  })
}

const missing = (at: StateAddress) => notFound('State', `${at.type}/${at.id}/${at.name}`)

export function getBotApiState(ctx: BotApiContext, input: Json) {
  const at = parseInput(botApiInputs.getState, input)
  return ctx.store.read(async (q) => {
    const scopeId = await scopeIdOf(ctx, q, at)
    const row = await q.botStates.findScope(ctx.bot.id, at.type, scopeId)
    const payload = row && !hasExpired(row, at.name, now()) ? row.value[at.name] : undefined
    if (!row || payload === undefined) throw missing(at)
    return { state: stateOf(ctx, at, payload, row, row.expiries?.[at.name]) }
  })
}

/** Sets (replaces) the state, with its expiry when given; a null payload removes it. */
export function setBotApiState(ctx: BotApiContext, input: Json) {
  const { payload, expiry, ...at } = parseInput(botApiInputs.setState, input)
  return withState(ctx, at, () => ({ next: payload, expiry, answer: (state) => ({ state }) }))
}

/** The live state as it is (its expiry untouched), else the payload sent, set with the expiry sent. */
export function getOrSetBotApiState(ctx: BotApiContext, input: Json) {
  const { payload, expiry, ...at } = parseInput(botApiInputs.getOrSetState, input)
  return withState(ctx, at, (current) =>
    current === undefined
      ? { next: payload, expiry, answer: (state) => ({ state, meta: { cached: false } }) }
      : { answer: (state) => ({ state, meta: { cached: true } }) },
  )
}

/** Merges the payload's properties into the stored one (shallowly); an unset state is 404. */
export function patchBotApiState(ctx: BotApiContext, input: Json) {
  const { payload, expiry, ...at } = parseInput(botApiInputs.patchState, input)
  return withState(ctx, at, (current) => {
    if (current === undefined) throw missing(at)
    return { next: { ...current, ...payload }, expiry, answer: (state) => ({ state }) }
  })
}

/**
 * setStateExpiry: the state expires once left unwritten for `expiry` ms from now (null: never);
 * its payload is kept. An unset or expired state is 404.
 */
export function setBotApiStateExpiry(ctx: BotApiContext, input: Json) {
  const { expiry, ...at } = parseInput(botApiInputs.setStateExpiry, input)
  return withState(ctx, at, (current) => {
    if (current === undefined) throw missing(at)
    return { expiry, answer: (state) => ({ state }) }
  })
}

export function deleteBotApiState(ctx: BotApiContext, input: Json) {
  const at = parseInput(botApiInputs.deleteState, input)
  return withState(ctx, at, (current) => {
    if (current === undefined) throw missing(at)
    return { next: null, answer: () => ({}) }
  })
}
