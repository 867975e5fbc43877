import type { ConversationRow, HandledBy, UserRow } from '../db/schema.ts'
import type { After, Queries } from '../db/store.ts'
import { incomingHitlEvent } from './bots/delivery/event.ts'
import { recordIncomingEvent } from './bots/delivery/outbox.ts'
import { now } from './clock.ts'
import type { ChatContext } from './context.ts'
import { agentUserId } from './agent-users.ts'
import { notFound } from './errors.ts'
import { newId } from './ids.ts'
import { tell } from './integration-webhooks.ts'

/*
 * Who answers a conversation's user (issue 52; docs/guides/handoff.md): the bot, nobody yet (the
 * conversation waits in its workspace's queue), a human agent, or nobody any more (closed by an
 * agent: the bot answers again). The conversation is the handoff's "HITL session" of Botpress' hitl
 * interface: its id is the session's `conversationId`. While a person holds it or it waits for one,
 * the user's messages are not delivered to the bot (postMessage records them as skipped).
 */

/** A new conversation: the bot's. */
export const botHandled = { handledBy: 'bot', agentId: null, handoffTitle: null, handoffAt: null } as const satisfies Pick<
  ConversationRow,
  'handledBy' | 'agentId' | 'handoffTitle' | 'handoffAt'
>

/** Whether the bot is delivered the user's messages. */
export const botAnswers = (handledBy: HandledBy): boolean => handledBy === 'bot' || handledBy === 'closed'

/** The hitl interface's events a bot receives (interfaces/hitl: hitlAssigned, hitlStopped). */
export type HitlEventType = 'hitl:hitlAssigned' | 'hitl:hitlStopped'

/** Inside a unit: the bot is told of the handoff, in its conversation's delivery order. */
export async function tellBot(
  ctx: ChatContext,
  q: Queries,
  after: After,
  conversation: ConversationRow,
  type: HitlEventType,
  payload: Record<string, unknown>,
) {
  await recordIncomingEvent(ctx, q, after, incomingHitlEvent(ctx.integration.botId, newId(), conversation, type, payload))
}

/** Inside a unit: the conversation, else 404. */
export async function findIn(ctx: ChatContext, q: Queries, conversationId: string): Promise<ConversationRow> {
  const row = await q.conversations.find(ctx.integration.id, conversationId)
  if (!row) throw notFound('Conversation', conversationId)
  return row
}

/** Inside a unit: agents' feeds hear who handles the conversation now, once it committed. */
export const published = (ctx: ChatContext, after: After, workspaceId: string, row: ConversationRow, agentName: string | null = null) =>
  after(() =>
    ctx.signals.publish(ctx.integration.id, {
      type: 'handoff_changed',
      conversationId: row.id,
      workspaceId,
      botId: ctx.integration.botId,
      handledBy: row.handledBy,
      agentId: row.agentId,
      agentName,
      handoffTitle: row.handoffTitle,
    }),
  )

/**
 * Inside a unit: the conversation waits for an agent (hitl:startHitl). One already waiting or held
 * by an agent stays as it is: asking twice is not an error (the bot may retry its call).
 */
export async function requestHandoff(
  ctx: ChatContext,
  q: Queries,
  after: After,
  workspaceId: string,
  conversationId: string,
  request: HandoffBrief,
): Promise<ConversationRow> {
  const at = now()
  const row = await q.handoffs.change({
    integrationId: ctx.integration.id,
    id: conversationId,
    handledBy: 'waiting',
    agentId: null,
    handoffTitle: request.title,
    handoffAt: at,
    updatedAt: at,
    from: ['bot', 'closed'],
  })
  if (!row) return findIn(ctx, q, conversationId)
  await q.handoffRequests.put({
    integrationId: ctx.integration.id,
    conversationId,
    description: request.description,
    messageHistory: request.messageHistory,
    requestedAt: at,
    firstReplyAt: null,
  })
  published(ctx, after, workspaceId, row)
  return row
}

/** What the bot hands a conversation over with (hitl:startHitl): shown to its agents until the handoff ends. */
export interface HandoffBrief {
  title: string | null
  description: string | null
  /** The interface's messages (`{source, type, payload}`), as the bot read the conversation. */
  messageHistory: Record<string, unknown>[] | null
}

/** How a handoff ends: the bot takes the conversation back (`bot`) or an agent closes it (`closed`). */
export type HandoffEnd = 'bot' | 'closed'

/**
 * Inside a unit: the conversation goes back to the bot, or is closed; its agent (if any) leaves it,
 * which its listeners hear (participant_removed). `tell`: whether the bot receives hitl:hitlStopped
 * (not when the bot itself stopped it: hitl:stopHitl). Undefined when it was not handed off.
 */
export async function endHandoff(
  ctx: ChatContext,
  q: Queries,
  after: After,
  workspaceId: string,
  conversationId: string,
  end: HandoffEnd,
  tell: boolean,
  from: readonly HandledBy[] = ['waiting', 'agent'],
): Promise<ConversationRow | undefined> {
  const before = await findIn(ctx, q, conversationId)
  const row = await q.handoffs.change({
    integrationId: ctx.integration.id,
    id: conversationId,
    handledBy: end,
    agentId: end === 'closed' ? before.agentId : null,
    handoffTitle: null,
    handoffAt: null,
    updatedAt: now(),
    from,
  })
  if (!row) return undefined
  await q.handoffRequests.delete(ctx.integration.id, conversationId)
  if (before.agentId !== null) await leave(ctx, q, after, conversationId, agentUserId(before.agentId))
  published(ctx, after, workspaceId, row)
  if (tell) await tellBot(ctx, q, after, row, 'hitl:hitlStopped', { conversationId })
  return row
}

/** Inside a unit: an agent's user leaves the conversation, which its listeners hear. */
export async function leave(ctx: ChatContext, q: Queries, after: After, conversationId: string, userId: string): Promise<void> {
  if (await q.participants.delete(ctx.integration.id, conversationId, userId)) {
    await tell(ctx, q, after, { type: 'participant_removed', conversationId, participantId: userId })
  }
}

/**
 * Inside a unit: the agent's user in the conversation's chat integration, named (and pictured) as
 * the agent is now: made on first use, renamed when the agent was.
 */
export async function agentUser(ctx: ChatContext, q: Queries, agent: { id: string; name: string }): Promise<UserRow> {
  const id = agentUserId(agent.id)
  const found = await q.users.find(ctx.integration.id, id)
  if (found && found.name === agent.name) return found
  const at = now()
  if (found) return (await q.users.update(ctx.integration.id, id, { name: agent.name, updatedAt: at })) ?? found
  const row: UserRow = {
    integrationId: ctx.integration.id,
    id,
    name: agent.name,
    pictureUrl: null,
    profile: null,
    isBot: false,
    createdAt: at,
    updatedAt: at,
    idChosen: false,
  }
  return (await q.users.insert(row)) ?? row
}
