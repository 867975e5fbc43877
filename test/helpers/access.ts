import { beforeEach, describe, expect, it } from 'vitest'
import type { Actor, JsonResponse, TestApp } from './app.ts'
import { expectRefusal, type Transport } from './transports.ts'

/** What a call is aimed at: the things of c1, or ids that name nothing. */
export interface Target {
  conversationId: string
  messageId: string
  eventId: string
}

type Call = (key: string | undefined, target: Target) => Promise<JsonResponse>

/** An operation over each transport it has, called with a user key and its arguments. */
export type Operation = Partial<Record<Transport, (key: string | undefined, ...args: any[]) => Promise<JsonResponse>>>

export type Rule = 'no key' | 'unknown user' | 'not a participant' | 'not found'
const ALL_RULES: readonly Rule[] = ['no key', 'unknown user', 'not a participant', 'not found']

const existing = (w: World): Target => ({ conversationId: 'c1', messageId: w.messageId, eventId: w.eventId })
const MISSING: Target = { conversationId: 'nope', messageId: 'no-such-message', eventId: 'no-such-event' }

interface World {
  alice: Actor
  bob: Actor
  mallory: Actor
  messageId: string
  eventId: string
}

/**
 * alice owns c1 with bob, mallory owns m1 alone; bob wrote a message and an event in c1. The app
 * must run without a bot answer, so that nothing changes between two snapshots but the call.
 */
async function world(t: TestApp): Promise<World> {
  const [alice, bob, mallory] = [await t.user('alice'), await t.user('bob'), await t.user('mallory')]
  await t.conversation(alice.key, 'c1', ['bob'])
  await t.conversation(mallory.key, 'm1')
  const messageId = (await t.message(bob.key, 'c1')).id
  const eventId = (await t.event(bob.key, 'c1')).id
  return { alice, bob, mallory, messageId, eventId }
}

/** Everything a refused call must leave as it was, live streams included. */
const snapshot = async (t: TestApp, w: World) => ({
  participants: await t.participantIds(w.alice.key, 'c1'),
  messages: await t.messageIds(w.alice.key, 'c1'),
  rows: await t.rows(),
  streams: t.app.streams.size,
  subscriptions: t.app.signals.activeSubscriptions(),
})

const refusals: Record<Rule, { code: number; type: string; title: string; run: (t: TestApp, w: World, call: Call) => Promise<JsonResponse> }> = {
  'no key': {
    code: 401,
    type: 'Unauthorized',
    title: 'refuses a request without x-user-key with 401 Unauthorized',
    run: (_t, w, call) => call(undefined, existing(w)),
  },
  'unknown user': {
    code: 401,
    type: 'Unauthorized',
    title: 'refuses a valid key whose user was never created with 401 Unauthorized',
    run: async (t, w, call) => call(await t.keyFor('ghost'), existing(w)),
  },
  'not a participant': {
    // As what does not exist: a 403 would tell a stranger that the id exists (issue 49 L5).
    code: 404,
    type: 'ResourceNotFound',
    title: 'answers a user who does not participate 404 ResourceNotFound, as for what does not exist',
    run: (_t, w, call) => call(w.mallory.key, existing(w)),
  },
  'not found': {
    code: 404,
    type: 'ResourceNotFound',
    title: 'answers 404 ResourceNotFound for what does not exist',
    run: (_t, w, call) => call(w.mallory.key, MISSING),
  },
}

/**
 * The rules of who may call an operation, once per transport: a refused call answers the error
 * the transport maps it to (GraphQL on `field`) and changes nothing, live streams and
 * subscriptions included. `args` aims the call at a target; `rules` are those that apply (every
 * operation needs a user key; the default is all four); `variant` names what the call does when
 * an operation is described more than once.
 */
export function describeAccess(
  t: TestApp,
  field: string,
  operation: Operation,
  args: (target: Target) => unknown[] = () => [],
  { rules = ALL_RULES, variant }: { rules?: readonly Rule[]; variant?: string } = {},
) {
  const call = Object.fromEntries(
    Object.entries(operation).map(([transport, fn]) => [transport, (key: string | undefined, target: Target) => fn(key, ...args(target))]),
  )
  describe(variant === undefined ? 'who may call it' : `who may call it (${variant})`, () => {
    let w: World
    beforeEach(async () => {
      w = await world(t)
    })

    const cases = rules.flatMap((rule) =>
      Object.entries(call).map(
        ([transport, fn]) => [`${transport} ${refusals[rule].title}, changing nothing`, rule, transport as Transport, fn as Call] as const,
      ),
    )
    it.each(cases)('%s', async (_title, rule, transport, fn) => {
      const { code, type, run } = refusals[rule]
      const before = await snapshot(t, w)
      expectRefusal(await run(t, w, fn), transport, code, type, [field])
      expect(await snapshot(t, w)).toEqual(before)
    })
  })
}
