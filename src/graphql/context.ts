import type { Logger } from 'pino'
import { bearerToken } from '../auth/admin-token.ts'
import { verifyUserKeyWithAny } from '../auth/user-key.ts'
import type { ChatIntegrationRow } from '../db/schema.ts'
import type { Store } from '../db/store.ts'
import type { BotInbox } from '../domain/bots/delivery/inbox.ts'
import { authenticateBot } from '../domain/bots/admin/api-keys.ts'
import type { AdminContext, ChatContext, ChatLimits } from '../domain/context.ts'
import type { BotApiContext } from '../domain/bot-api/context.ts'
import type { NonParticipantStatus } from '../config.ts'
import { type AgentAction, type AgentContext, authenticateAgent, type HandoffObserver } from '../domain/agents.ts'
import type { MessageStreams } from '../domain/message-streams.ts'
import { DomainError } from '../domain/errors.ts'
import { verifyingKeysOf } from '../domain/key-modes.ts'
import { type ChatIntegrations, checkedStore } from '../domain/integration-cache.ts'
import { authenticateAdmin } from '../domain/tenancy.ts'
import { userSlot } from '../limits/slots.ts'
import type { SignalHub } from '../signals/hub.ts'
import { failureToGraphQLError } from './errors.ts'

/**
 * The context of one operation. Exactly one scope is set: `chat` on /{webhookId}/…, `admin` on
 * /v1/admin/…; each scope's schema only holds fields that read its own.
 */
export interface GraphQLContext {
  requestId: string
  log: Logger
  signals: SignalHub
  chat?: ChatContext
  admin?: AdminContext
  botApi?: BotApiContext
  /** The agent API scope (/v1/agent/…): the agent an agent key opened. */
  agent?: AgentContext
  /** The caps on what an agent writes (its replies' size, as a user's). */
  agentLimits?: Pick<ChatLimits, 'messageMaxBytes'>
  /**
   * The base every absolute URL handed out starts with (PUBLIC_URL, else the origin the caller reached
   * the server at, as http/public-origin.ts tells it): a bot's webhookUrl, a file's url and uploadUrl.
   * Asked for, not given: few operations need it, and working it out is a cost every request would pay.
   */
  baseUrl?: () => string
  /**
   * The bytes the answer may still take (answer-cap.ts), for an operation that could answer more than
   * RESPONSE_MAX_BYTES: the fields that carry written bytes count what they answer through it.
   */
  answer?: { counted(value: unknown): unknown }
}

export interface ContextDeps {
  store: Store
  /** How chat requests find their integration (domain/integration-cache.ts), chosen once by wiring from the engine. */
  integrations: ChatIntegrations
  /** The caps on what a user writes; none when absent. */
  chatLimits?: ChatLimits
  /** NON_PARTICIPANT_STATUS (domain/non-participant.ts): 404 when absent. */
  nonParticipantStatus?: NonParticipantStatus
  log: Logger
  signals: SignalHub
  bots: BotInbox
  /** The message streams bots publish (chat:publishMessageStream), as this instance knows them. */
  streams: MessageStreams
  /** Told how handoffs go (metrics); none without them. */
  handoffObserver?: HandoffObserver
}

// A node of the other scope (its global id given to node()) is not found here, like an unknown id.
const outOfScope = () => new DomainError('ResourceNotFound', 'no such object in this API')

export function chatScope(ctx: GraphQLContext): ChatContext {
  if (!ctx.chat) throw outOfScope()
  return ctx.chat
}

export function adminScope(ctx: GraphQLContext): AdminContext {
  if (!ctx.admin) throw outOfScope()
  return ctx.admin
}

export function agentScope(ctx: GraphQLContext): AgentContext {
  if (!ctx.agent) throw outOfScope()
  return ctx.agent
}

/** agent API scope: an agent key (401 otherwise; no other credential is one). */
export function createAgentContext(
  deps: ContextDeps,
  { requestId, authorization }: { requestId: string; authorization: string | undefined },
): Promise<GraphQLContext> {
  return refusingWithStatus(async () => {
    const agent = await authenticateAgent(deps.store, bearerToken(authorization))
    return {
      requestId,
      log: deps.log,
      signals: deps.signals,
      agent: {
        store: deps.store,
        agent,
        signals: deps.signals,
        bots: deps.bots,
        // Beside the request's access line (the same requestId): who did what to which conversation.
        actions: (action: AgentAction) => deps.log.info({ requestId, ...action }, 'agent action'),
        handoffs: deps.handoffObserver,
      },
      agentLimits: { messageMaxBytes: deps.chatLimits?.messageMaxBytes ?? 0 },
    }
  })
}

export function botApiScope(ctx: GraphQLContext): BotApiContext {
  if (!ctx.botApi) throw outOfScope()
  return ctx.botApi
}

/** The verified user a context acts for, as live connections are counted (limits/slots.ts); none without a user key. */
export const countedCaller = (ctx: GraphQLContext): string | undefined =>
  ctx.chat?.callerId === undefined ? undefined : userSlot(ctx.chat.integration.id, ctx.chat.callerId)

/** bot API scope: a bot API key and the id of the bot it belongs to (401 otherwise). */
export function createBotApiContext(
  deps: ContextDeps,
  { requestId, authorization, botId }: { requestId: string; authorization: string | undefined; botId: string | undefined },
): Promise<GraphQLContext> {
  return refusingWithStatus(async () => {
    const { bot, integration } = await authenticateBot(deps.store, bearerToken(authorization), botId)
    return {
      requestId,
      log: deps.log,
      signals: deps.signals,
      botApi: { store: deps.store, bot, integration, signals: deps.signals, bots: deps.bots, streams: deps.streams },
    }
  })
}

/**
 * Chat scope: the webhook id must name a chat integration (404), and an x-user-key, when given,
 * must verify against the key that integration signs with now, personal or shared, or one a rotation still keeps (401). A missing key is left for the verbs
 * to refuse, because createUser needs none.
 */
export async function createChatContext(
  deps: ContextDeps,
  {
    requestId,
    webhookId,
    userKey,
    adminSecret,
    baseUrl,
    told,
  }: {
    requestId: string
    webhookId: string
    userKey: string | undefined
    adminSecret?: string
    baseUrl?: () => string
    /** Told the verified caller (countedCaller), for the caps on the request's transport. */
    told?: { caller?: string }
  },
): Promise<GraphQLContext> {
  return refusingWithStatus(async () => {
    // A request with a user key (and no admin secret) may take the integration from memory: each of
    // its verbs begins with a statement, which checks it (domain/integration-cache.ts).
    const fromMemory = Boolean(userKey) && !adminSecret
    const callerOf = (integration: ChatIntegrationRow) => verifyUserKeyWithAny(userKey as string, verifyingKeysOf(integration))
    let opened = await deps.integrations.open(deps.store, webhookId, fromMemory)
    let callerId: string | undefined
    if (userKey) {
      try {
        callerId = await callerOf(opened.integration)
      } catch (refusal) {
        // Signed with a key set since, on another instance?
        if (opened.unchecked === undefined) throw refusal
        opened = await deps.integrations.open(deps.store, webhookId, false)
        callerId = await callerOf(opened.integration)
      }
    }
    const chat: ChatContext = {
      store: deps.store,
      integration: opened.integration,
      callerId,
      callerKey: callerId === undefined ? undefined : userKey,
      adminSecret,
      signals: deps.signals,
      bots: deps.bots,
      memo: {},
      limits: deps.chatLimits,
      nonParticipantStatus: deps.nonParticipantStatus,
    }
    if (opened.unchecked !== undefined) {
      chat.store = checkedStore(deps.store, chat, opened.unchecked, async (integration) => {
        chat.callerId = await callerOf(integration)
      })
    }
    const context: GraphQLContext = { requestId, log: deps.log, signals: deps.signals, chat, baseUrl, answer: undefined }
    if (told) told.caller = countedCaller(context)
    return context
  })
}

export function createAdminContext(
  deps: ContextDeps,
  {
    requestId,
    authorization,
    workspaceId: claimedWorkspaceId,
    baseUrl,
  }: { requestId: string; authorization: string | undefined; workspaceId: string | undefined; baseUrl?: () => string },
): Promise<GraphQLContext> {
  return refusingWithStatus(async () => {
    const workspaceId = await authenticateAdmin(deps.store, bearerToken(authorization), claimedWorkspaceId)
    return {
      requestId,
      log: deps.log,
      signals: deps.signals,
      admin: { store: deps.store, workspaceId, signals: deps.signals, bots: deps.bots, memo: {} },
      baseUrl,
    }
  })
}

/** A context that cannot be made refuses the whole request, with the status of its domain error. */
async function refusingWithStatus<T>(make: () => Promise<T>): Promise<T> {
  try {
    return await make()
  } catch (error) {
    throw error instanceof DomainError ? failureToGraphQLError(error, true) : error
  }
}
