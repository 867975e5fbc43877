import type { ChatIntegrationRow, ConversationNoteRow, ConversationRow, HandoffRequestRow, MessageRow } from '../db/schema.ts'
import { audited } from './agent-audit.ts'
import type { After, Queries } from '../db/store.ts'
import { agentUserId } from './agent-users.ts'
import { type Agent, type AgentContext, maxAgentsListed, shownAgent } from './agents.ts'
import { botChatContext } from './bots/chat/as-bot.ts'
import { now } from './clock.ts'
import type { ChatContext } from './context.ts'
import { DomainError, forbidden, invalidPayload, notFound } from './errors.ts'
import { agentUser, endHandoff, findIn, leave, published, tellBot } from './handoff.ts'
import { newId } from './ids.ts'
import { checkMessage, checkMessageSize, postMessage } from './messages.ts'
import { joinConversation } from './participants.ts'
import { typingAs } from './typing.ts'

/*
 * What an agent does (issue 52; docs/guides/handoff.md), in the conversations of its workspace's
 * bots, each named by its bot and its id. An agent sees the queue (conversations waiting for one)
 * and the conversations it holds or closed; a supervisor sees every conversation of the workspace.
 * Anything else is answered as what does not exist (404): an agent learns nothing of other
 * workspaces' nor other agents' conversations.
 */

/** A conversation with the bot it belongs to, as the agent API names it. */
export interface DeskConversation {
  botId: string
  conversation: ConversationRow
  /** What the bot handed it over with (hitl:startHitl), while handed off: the description in lists, the history too when read alone. */
  brief?: Pick<HandoffRequestRow, 'description'> & Partial<Pick<HandoffRequestRow, 'messageHistory'>>
}

export const maxListed = 100
export const maxNoteLength = 4096
/** The most messages of a conversation's history one call answers (newest first). */
export const maxHistory = 200

/** Whether the agent may see the conversation (its API, its feeds). */
export const visibleTo = (ctx: AgentContext, row: Pick<ConversationRow, 'handledBy' | 'agentId'>): boolean =>
  ctx.agent.role === 'supervisor' || row.handledBy === 'waiting' || row.agentId === ctx.agent.id

/** Whether the agent holds the conversation (a supervisor may act on any an agent holds). */
const holds = (ctx: AgentContext, row: ConversationRow): boolean =>
  row.handledBy === 'agent' && (row.agentId === ctx.agent.id || ctx.agent.role === 'supervisor')

/** The conversation's chat integration, in the agent's workspace, and the conversation if the agent may see it; else 404. */
async function open(ctx: AgentContext, q: Queries, botId: string, conversationId: string): Promise<{ chat: ChatContext; row: ConversationRow }> {
  const hidden = notFound('Conversation', conversationId)
  const bot = await q.bots.find(ctx.agent.workspaceId, botId)
  const integration: ChatIntegrationRow | undefined = bot && (await q.bots.integrationOf(bot.id))
  if (!integration) throw hidden
  const chat = botChatContext(ctx.store, integration, ctx.signals, ctx.bots)
  const row = await q.conversations.find(integration.id, conversationId)
  if (!row || !visibleTo(ctx, row)) throw hidden
  return { chat, row }
}

const refuseUnheld = (ctx: AgentContext, row: ConversationRow) => {
  if (!holds(ctx, row)) throw forbidden(`conversation "${row.id}" is not held by agent "${ctx.agent.id}" (claim it first)`)
}

/** Listed conversations carry the description only: a history may be large, and is read with its conversation. */
const listed = (rows: { botId: string; conversation: ConversationRow; description: string | null }[]): DeskConversation[] =>
  rows.map(({ botId, conversation, description }) => ({ botId, conversation, brief: { description } }))

/** The conversations waiting for an agent in the workspace, the longest waiting first. */
export function listQueue({ ctx }: { ctx: AgentContext }): Promise<DeskConversation[]> {
  return audited(ctx, 'listQueue', {}, () =>
    ctx.store.read(async (q) => listed(await q.handoffs.ofWorkspace(ctx.agent.workspaceId, 'waiting', undefined, maxListed))),
  )
}

/** The conversations the agent holds (a supervisor: every agent's). */
export function listMine({ ctx }: { ctx: AgentContext }): Promise<DeskConversation[]> {
  const agentId = ctx.agent.role === 'supervisor' ? undefined : ctx.agent.id
  return audited(ctx, 'listMyConversations', {}, () =>
    ctx.store.read(async (q) => listed(await q.handoffs.ofWorkspace(ctx.agent.workspaceId, 'agent', agentId, maxListed))),
  )
}

/** A conversation the agent may see, with what the bot handed it over with (its description and message history). */
export function getDeskConversation({ ctx, botId, id }: { ctx: AgentContext; botId: string; id: string }): Promise<DeskConversation> {
  return audited(ctx, 'getConversation', { botId, id }, () =>
    ctx.store.read(async (q) => {
      const { chat, row } = await open(ctx, q, botId, id)
      const request = await q.handoffRequests.find(chat.integration.id, id)
      return { botId, conversation: row, ...(request ? { brief: { description: request.description, messageHistory: request.messageHistory } } : {}) }
    }),
  )
}

/** The conversation's messages, newest first (the user's, the bot's and agents'). */
export function listHistory({ ctx, botId, id }: { ctx: AgentContext; botId: string; id: string }): Promise<MessageRow[]> {
  return audited(ctx, 'listHistory', { botId, id }, () =>
    ctx.store.read(async (q) => {
      const { chat } = await open(ctx, q, botId, id)
      return (await q.messages.pages(chat.integration.id, [id], { limit: maxHistory, inverted: false })).get(id) ?? []
    }),
  )
}

/** Inside a unit: the agent's user joins the conversation (its listeners hear it, by name) and the bot is told hitlAssigned. */
async function assign(chat: ChatContext, q: Queries, after: After, agent: { id: string; name: string; workspaceId: string }, row: ConversationRow) {
  const user = await agentUser(chat, q, agent)
  await joinConversation(chat, q, after, row.id, user.id)
  published(chat, after, agent.workspaceId, row, agent.name)
  await tellBot(chat, q, after, row, 'hitl:hitlAssigned', { conversationId: row.id, userId: user.id })
}

/** The agent takes a waiting conversation: 409 when another took it first (or it is not waiting). */
export function claimConversation({ ctx, botId, id }: { ctx: AgentContext; botId: string; id: string }): Promise<DeskConversation> {
  return audited(ctx, 'claimConversation', { botId, id }, () =>
    ctx.store.write(async (q, after) => {
      const { chat, row } = await open(ctx, q, botId, id)
      const claimed = await q.handoffs.change({
        integrationId: chat.integration.id,
        id,
        handledBy: 'agent',
        agentId: ctx.agent.id,
        handoffTitle: row.handoffTitle,
        handoffAt: row.handoffAt,
        updatedAt: now(),
        from: ['waiting'],
      })
      if (!claimed) throw new DomainError('AlreadyExists', `conversation "${id}" is not waiting for an agent (it is handled by: ${row.handledBy})`)
      await assign(chat, q, after, ctx.agent, claimed)
      return { botId, conversation: claimed }
    }),
  )
}

/** The agent posts in a conversation it holds, as its own participant (neither the bot nor the user). */
export function replyAsAgent({
  ctx,
  botId,
  id,
  input,
  messageMaxBytes,
}: {
  ctx: AgentContext
  botId: string
  id: string
  input: { payload: unknown; metadata?: Record<string, unknown> | null }
  messageMaxBytes: number
}): Promise<MessageRow> {
  return audited(ctx, 'replyToConversation', { botId, id }, async () => {
    const message = checkMessage({ conversationId: id, payload: input.payload, metadata: input.metadata })
    checkMessageSize(message, messageMaxBytes)
    return ctx.store.write(async (q, after) => {
      const { chat, row } = await open(ctx, q, botId, id)
      refuseUnheld(ctx, row)
      // A supervisor acting on another agent's conversation posts as itself.
      const user = await agentUser(chat, q, ctx.agent)
      await joinConversation(chat, q, after, id, user.id)
      const posted = await postMessage({ ...chat, callerId: user.id }, q, after, message, { id: user.id, isBot: false }, row)
      await firstReplyOf(ctx, q, after, posted)
      return posted
    })
  })
}

/**
 * Inside a unit: the first agent reply since the handoff was requested is timed, once, whichever
 * instance posts it (the request row is marked in the reply's unit: of two at once, one marks it).
 */
async function firstReplyOf(ctx: AgentContext, q: Queries, after: After, reply: MessageRow): Promise<void> {
  const requestedAt = await q.handoffRequests.answered(reply.integrationId, reply.conversationId, reply.createdAt)
  const observer = ctx.handoffs
  if (requestedAt === undefined || !observer) return
  const seconds = Math.max(0, (Date.parse(reply.createdAt) - Date.parse(requestedAt)) / 1000)
  after(() => observer.firstAgentReply(seconds))
}

/** The agent starts or stops typing in a conversation it holds: the user's listeners are told, nothing is stored. */
export async function agentTyping({
  ctx,
  botId,
  id,
  typing,
  timeoutMs,
}: {
  ctx: AgentContext
  botId: string
  id: string
  typing: boolean
  timeoutMs?: number | null
}): Promise<void> {
  return audited(ctx, typing ? 'startTyping' : 'stopTyping', { botId, id }, async () => {
    const { chat, row } = await ctx.store.read((q) => open(ctx, q, botId, id))
    refuseUnheld(ctx, row)
    typingAs(chat, id, agentUserId(ctx.agent.id), typing, timeoutMs)
  })
}

/** A note on a conversation the agent may see, for agents only: never shown to the user nor the bot. */
export function addNote({ ctx, botId, id, text }: { ctx: AgentContext; botId: string; id: string; text: string }): Promise<ConversationNoteRow> {
  return audited(ctx, 'addNote', { botId, id }, async () => {
    if (text.trim() === '' || text.length > maxNoteLength) throw invalidPayload(`text must be 1-${maxNoteLength} characters, not blank`)
    return ctx.store.write(async (q) => {
      const { chat } = await open(ctx, q, botId, id)
      const row: ConversationNoteRow = { integrationId: chat.integration.id, id: newId(), conversationId: id, agentId: ctx.agent.id, text, createdAt: now() }
      await q.conversationNotes.insert(row)
      return row
    })
  })
}

export function listNotes({ ctx, botId, id }: { ctx: AgentContext; botId: string; id: string }): Promise<ConversationNoteRow[]> {
  return audited(ctx, 'listNotes', { botId, id }, () =>
    ctx.store.read(async (q) => {
      const { chat } = await open(ctx, q, botId, id)
      return q.conversationNotes.ofConversation(chat.integration.id, id, maxListed)
    }),
  )
}

/** The conversation passes to another agent of the workspace, who joins it as the first leaves; the bot is told hitlAssigned again. */
export function transferConversation({
  ctx,
  botId,
  id,
  toAgentId,
}: {
  ctx: AgentContext
  botId: string
  id: string
  toAgentId: string
}): Promise<DeskConversation> {
  return audited(ctx, 'transferConversation', { botId, id, toAgentId }, () =>
    ctx.store.write(async (q, after) => {
      const { chat, row } = await open(ctx, q, botId, id)
      refuseUnheld(ctx, row)
      const to = await q.agents.find(ctx.agent.workspaceId, toAgentId)
      if (!to) throw notFound('Agent', toAgentId)
      if (to.id === row.agentId) return { botId, conversation: row }
      const moved = await q.handoffs.change({
        integrationId: chat.integration.id,
        id,
        handledBy: 'agent',
        agentId: to.id,
        handoffTitle: row.handoffTitle,
        handoffAt: row.handoffAt,
        updatedAt: now(),
        from: ['agent'],
      })
      if (!moved) throw new DomainError('AlreadyExists', `conversation "${id}" is no longer held by an agent`)
      if (row.agentId !== null) await leave(chat, q, after, id, agentUserId(row.agentId))
      await assign(chat, q, after, to, moved)
      return { botId, conversation: moved }
    }),
  )
}

/** The agent gives the conversation back to the bot (release) or closes it; the agent leaves it and the bot is told hitlStopped. */
export function endConversationHandoff({
  ctx,
  botId,
  id,
  end,
}: {
  ctx: AgentContext
  botId: string
  id: string
  end: 'bot' | 'closed'
}): Promise<DeskConversation> {
  return audited(ctx, end === 'bot' ? 'releaseConversation' : 'closeConversation', { botId, id }, () =>
    ctx.store.write(async (q, after) => {
      const { chat, row } = await open(ctx, q, botId, id)
      // A waiting conversation may be closed (or given back) by a supervisor; an agent acts on what it holds.
      if (!(holds(ctx, row) || (row.handledBy === 'waiting' && ctx.agent.role === 'supervisor'))) refuseUnheld(ctx, row)
      const ended = await endHandoff(chat, q, after, ctx.agent.workspaceId, id, end, true, ['agent', 'waiting'])
      return { botId, conversation: ended ?? (await findIn(chat, q, id)) }
    }),
  )
}

/** The agents of the calling agent's workspace, oldest first: whom it may transfer a conversation to. */
export function listColleagues({ ctx }: { ctx: AgentContext }): Promise<Agent[]> {
  return audited(ctx, 'listAgents', {}, () => ctx.store.read(async (q) => (await q.agents.list(ctx.agent.workspaceId, maxAgentsListed)).map(shownAgent)))
}
