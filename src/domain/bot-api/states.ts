import type { BotStateRow } from '../../db/schema.ts'
import type { Queries } from '../../db/store.ts'
import { now } from '../clock.ts'
import { notFound } from '../errors.ts'
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

const stateOf = (ctx: BotApiContext, at: StateAddress, payload: unknown, row: { updatedAt: string }): Json => ({
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

/** Reads, changes and writes one state in a unit: `change` returns the new payload (undefined: kept, null: removed) and the answer. */
function withState(ctx: BotApiContext, at: StateAddress, change: (current: Json | undefined) => { next?: Json | null; answer: (state: Json) => Json }) {
  return ctx.store.write(async (q) => {
    const scopeId = await scopeIdOf(ctx, q, at)
    const row = await q.botStates.findScope(ctx.bot.id, at.type, scopeId)
    const value = row?.value ?? {}
    const current = value[at.name] as Json | undefined
    const { next, answer } = change(current)
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

export function getBotApiState(ctx: BotApiContext, input: Json) {
  const at = parseInput(botApiInputs.getState, input)
  return ctx.store.read(async (q) => {
    const scopeId = await scopeIdOf(ctx, q, at)
    const row = await q.botStates.findScope(ctx.bot.id, at.type, scopeId)
    const payload = row?.value[at.name]
    if (!row || payload === undefined) throw missing(at)
    return { state: stateOf(ctx, at, payload, row) }
  })
}

/** Sets (replaces) the state; a null payload removes it. */
export function setBotApiState(ctx: BotApiContext, input: Json) {
  const { payload, expiry: _, ...at } = parseInput(botApiInputs.setState, input)
  return withState(ctx, at, () => ({ next: payload, answer: (state) => ({ state }) }))
}

export function getOrSetBotApiState(ctx: BotApiContext, input: Json) {
  const { payload, expiry: _, ...at } = parseInput(botApiInputs.getOrSetState, input)
  return withState(ctx, at, (current) =>
    current === undefined
      ? { next: payload, answer: (state) => ({ state, meta: { cached: false } }) }
      : { answer: (state) => ({ state, meta: { cached: true } }) },
  )
}

/** Merges the payload's properties into the stored one (shallowly); an unset state is 404. */
export function patchBotApiState(ctx: BotApiContext, input: Json) {
  const { payload, expiry: _, ...at } = parseInput(botApiInputs.patchState, input)
  return withState(ctx, at, (current) => {
    if (current === undefined) throw missing(at)
    return { next: { ...current, ...payload }, answer: (state) => ({ state }) }
  })
}

export function deleteBotApiState(ctx: BotApiContext, input: Json) {
  const at = parseInput(botApiInputs.deleteState, input)
  return withState(ctx, at, (current) => {
    if (current === undefined) throw missing(at)
    return { next: null, answer: () => ({}) }
  })
}
