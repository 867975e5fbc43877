import { Client as ChatClient } from '@botpress/chat'
import { Client, ResourceNotFoundError } from '@botpress/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { BotContext } from '../../src/bots/handler.ts'
import { adminClient } from '../bots/sdk-bot.ts'
import { setClock } from '../helpers/clock.ts'
import { type Listening, startListening } from '../helpers/listening.ts'
import { eventually } from '../helpers/wait.ts'

// A state's expiry (setState/getOrSetState/patchState `expiry`, setStateExpiry), through
// @botpress/client: a state left unwritten for `expiry` ms is gone, for the bot API and for
// event.state alike; its row drops it at the next write of its scope, or at the retention sweep.
// The clock the app reads is moved (setClock), never waited for.

let confab: Listening
let botId: string
let key: string
let bot: Client
let alice: Awaited<ReturnType<typeof ChatClient.connect>>
const seen: BotContext['state'][] = []

beforeAll(async () => {
  confab = await startListening({
    handlers: { echo: async ({ state }) => void seen.push(state) },
    retention: { days: 3650, intervalMs: 3_600_000 },
  })
  botId = confab.botId
  ;({ value: key } = await adminClient(confab.baseUrl).createBotApiKey({ botId, note: 'expiry test' }))
  bot = new Client({ apiUrl: confab.baseUrl, token: key, botId, retry: { retries: 0 } })
  alice = await ChatClient.connect({ apiUrl: confab.apiUrl, userId: 'alice' })
  for (const id of ['c1', 'c2', 'c3', 'c4', 'c5', 'c6']) await alice.createConversation({ id })
}, 60_000)

afterAll(async () => {
  await confab?.close()
})

const T0 = '2027-03-01T10:00:00.000Z'
const at = (ms: number) => new Date(Date.parse(T0) + ms).toISOString()
const storedNames = async (conversationId: string) => {
  const rows = await confab.t.query<{ value: unknown }>("select value from bot_states where scope = 'conversation' and scope_id = ?", conversationId)
  const value = rows[0]?.value
  return Object.keys((typeof value === 'string' ? JSON.parse(value) : value) as object)
}

describe('setState with expiry', () => {
  it('answers the expiry and when it falls; the state is there until then, and 404 from then on', async () => {
    setClock(T0)
    const { state } = await bot.setState({ type: 'conversation', id: 'c1', name: 'session', payload: { step: 1 }, expiry: 60_000 })
    expect(state).toMatchObject({ name: 'session', payload: { step: 1 }, expiry: 60_000, expiresAt: at(60_000), updatedAt: T0 })
    setClock(at(59_999))
    expect((await bot.getState({ type: 'conversation', id: 'c1', name: 'session' })).state).toMatchObject({ payload: { step: 1 }, expiresAt: at(60_000) })
    setClock(at(60_000))
    await expect(bot.getState({ type: 'conversation', id: 'c1', name: 'session' })).rejects.toBeInstanceOf(ResourceNotFoundError)
    await expect(bot.patchState({ type: 'conversation', id: 'c1', name: 'session', payload: { step: 2 } })).rejects.toBeInstanceOf(ResourceNotFoundError)
  })

  it('a state without expiry never expires, and one set again without expiry keeps the one it had, its clock started again', async () => {
    setClock(T0)
    await bot.setState({ type: 'conversation', id: 'c2', name: 'forever', payload: { n: 1 } })
    await bot.setState({ type: 'conversation', id: 'c2', name: 'idle', payload: { n: 1 }, expiry: 60_000 })
    setClock(at(30_000))
    const { state } = await bot.setState({ type: 'conversation', id: 'c2', name: 'idle', payload: { n: 2 } })
    expect(state).toMatchObject({ expiry: 60_000, expiresAt: at(90_000) })
    setClock(at(80_000))
    expect((await bot.getState({ type: 'conversation', id: 'c2', name: 'idle' })).state.payload).toEqual({ n: 2 })
    setClock(at(90_000))
    await expect(bot.getState({ type: 'conversation', id: 'c2', name: 'idle' })).rejects.toBeInstanceOf(ResourceNotFoundError)
    setClock(at(10 * 365 * 86_400_000))
    const forever = (await bot.getState({ type: 'conversation', id: 'c2', name: 'forever' })).state
    expect(forever.payload).toEqual({ n: 1 })
    expect(forever).not.toHaveProperty('expiresAt')
  })
})

describe('getOrSetState and patchState with expiry', () => {
  it('getOrSet sets the expiry with the payload it sets; an expired state is set anew (cached: false)', async () => {
    setClock(T0)
    const first = await bot.getOrSetState({ type: 'conversation', id: 'c3', name: 'cart', payload: { items: 0 }, expiry: 1_000 })
    expect(first).toMatchObject({ meta: { cached: false }, state: { expiresAt: at(1_000) } })
    const again = await bot.getOrSetState({ type: 'conversation', id: 'c3', name: 'cart', payload: { items: 9 }, expiry: 5_000 })
    expect(again).toMatchObject({ meta: { cached: true }, state: { payload: { items: 0 }, expiresAt: at(1_000) } })
    setClock(at(1_000))
    const anew = await bot.getOrSetState({ type: 'conversation', id: 'c3', name: 'cart', payload: { items: 9 } })
    expect(anew.meta).toEqual({ cached: false })
    expect(anew.state.payload).toEqual({ items: 9 })
    expect(anew.state).not.toHaveProperty('expiresAt')
  })

  it('patch restarts the clock, and sets a new expiry when given one', async () => {
    setClock(T0)
    await bot.setState({ type: 'conversation', id: 'c3', name: 'draft', payload: { a: 1 }, expiry: 10_000 })
    setClock(at(5_000))
    expect((await bot.patchState({ type: 'conversation', id: 'c3', name: 'draft', payload: { b: 2 } })).state).toMatchObject({
      payload: { a: 1, b: 2 },
      expiresAt: at(15_000),
    })
    expect((await bot.patchState({ type: 'conversation', id: 'c3', name: 'draft', payload: { c: 3 }, expiry: 1_000 })).state).toMatchObject({
      expiry: 1_000,
      expiresAt: at(6_000),
    })
  })
})

describe('setStateExpiry', () => {
  it('sets how long the state lives unwritten from now, keeping its payload; null makes it live for ever', async () => {
    setClock(T0)
    await bot.setState({ type: 'user', id: 'alice', name: 'prefs', payload: { lang: 'fr' } })
    const { state } = await bot.setStateExpiry({ type: 'user', id: 'alice', name: 'prefs', expiry: 2_000 })
    expect(state).toMatchObject({ type: 'user', userId: 'alice', name: 'prefs', payload: { lang: 'fr' }, expiry: 2_000, expiresAt: at(2_000) })
    const kept = await bot.setStateExpiry({ type: 'user', id: 'alice', name: 'prefs', expiry: null })
    expect(kept.state).not.toHaveProperty('expiresAt')
    setClock(at(3_000))
    expect((await bot.getState({ type: 'user', id: 'alice', name: 'prefs' })).state.payload).toEqual({ lang: 'fr' })
  })

  it('is 404 for a state that is not set or has expired, and for a scope of another bot', async () => {
    setClock(T0)
    await expect(bot.setStateExpiry({ type: 'conversation', id: 'c4', name: 'nothing', expiry: 1_000 })).rejects.toBeInstanceOf(ResourceNotFoundError)
    await bot.setState({ type: 'conversation', id: 'c4', name: 'short', payload: {}, expiry: 10 })
    setClock(at(10))
    await expect(bot.setStateExpiry({ type: 'conversation', id: 'c4', name: 'short', expiry: 1_000 })).rejects.toBeInstanceOf(ResourceNotFoundError)
    await expect(bot.setStateExpiry({ type: 'bot', id: 'another-bot', name: 'x', expiry: 1_000 })).rejects.toBeInstanceOf(ResourceNotFoundError)
  })

  it('refuses an expiry that is not a whole number of milliseconds from 1 ms to ten years', async () => {
    const message = 'expiry must be a whole number of milliseconds from 1 to 315360000000, or null'
    for (const expiry of [0, -5, 1.5, 315_360_000_001, '60000']) {
      const res = await fetch(`${confab.baseUrl}/v1/chat/states/bot/${botId}/config/expiry`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'x-bot-id': botId, 'content-type': 'application/json' },
        body: JSON.stringify({ expiry }),
      })
      expect({ status: res.status, body: await res.json() }).toMatchObject({ status: 400, body: { code: 400, type: 'InvalidPayload', message } })
    }
    await expect(bot.setState({ type: 'bot', id: botId, name: 'config', payload: {}, expiry: 0 })).rejects.toMatchObject({
      code: 400,
      type: 'InvalidPayload',
      message,
    })
  })
})

describe('event.state', () => {
  it('leaves out the states that have expired', async () => {
    setClock(T0)
    await bot.setState({ type: 'conversation', id: 'c5', name: 'gone', payload: { x: 1 }, expiry: 1_000 })
    await bot.setState({ type: 'conversation', id: 'c5', name: 'kept', payload: { y: 2 } })
    setClock(at(1_000))
    seen.length = 0
    await alice.createMessage({ conversationId: 'c5', payload: { type: 'text', text: 'hi' } })
    await eventually(() => expect(seen).toHaveLength(1))
    expect(seen[0]?.conversation).toEqual({ kept: { y: 2 } })
  })
})

describe('expired states leave storage', () => {
  it('at the next bot API write of their scope', async () => {
    setClock(T0)
    await bot.setState({ type: 'conversation', id: 'c6', name: 'old', payload: {}, expiry: 1_000 })
    setClock(at(2_000))
    expect(await storedNames('c6')).toEqual(['old'])
    await bot.setState({ type: 'conversation', id: 'c6', name: 'new', payload: {} })
    expect(await storedNames('c6')).toEqual(['new'])
  })

  it('at the retention cycle, whatever their age', async () => {
    setClock(T0)
    await bot.setState({ type: 'conversation', id: 'c6', name: 'brief', payload: {}, expiry: 1_000 })
    await bot.setState({ type: 'conversation', id: 'c6', name: 'lasting', payload: {}, expiry: 60_000 })
    setClock(at(1_000))
    await confab.t.app.retention.runOnce()
    expect((await storedNames('c6')).sort()).toEqual(['lasting', 'new'])
    const [row] = await confab.t.query<{ expires_at: string }>("select expires_at from bot_states where scope = 'conversation' and scope_id = 'c6'")
    expect(row?.expires_at).toBe(at(60_000))
  })
})
