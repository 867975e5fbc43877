import type {
  AdminTokenRow,
  AgentRow,
  ConversationNoteRow,
  BotApiKeyRow,
  BotDeliveryRow,
  BotEventRow,
  BotLogRow,
  BotRow,
  BotStateRow,
  ChatIntegrationRow,
  ConversationRow,
  ConversationSignalRow,
  ConversationTagRow,
  DeletedUserRow,
  EventRow,
  FileRow,
  HandoffRequestRow,
  IntegrationWebhookDeliveryRow,
  MessageFeedback,
  MessageRow,
  ParticipantRow,
  UserRow,
  WorkspaceRow,
} from './schema.ts'
import type { FileBytes } from './file-bytes.ts'

/*
 * The storage API the domain runs on. The domain keeps the rules; every statement lives behind a
 * named query below, said once as a shape (src/db/queries/) that each engine (src/db/sqlite,
 * src/db/postgres) runs, so that no verb branches on the dialect.
 */

/** A keyset position: the sort value of a row and its id (the tie-breaker). */
export type Position = readonly [sortValue: string, id: string]

/**
 * A window of a list in its natural order (newest first for messages and conversations, oldest
 * first for participants): rows strictly after `after` and before `before`, at most `limit` of
 * them, walked from the far end when `inverted` (a `last: n` page), always returned in list order
 * of the walk. Never an OFFSET: a page costs the same wherever it is.
 */
export interface KeysetWindow {
  after?: Position
  before?: Position
  limit: number
  inverted: boolean
}

export type SortDirection = 'asc' | 'desc'

/** A conversation, and the caller's user row when the caller participates in it. */
export interface Participation {
  conversation: ConversationRow | undefined
  participant: UserRow | undefined
}

/** A participant as a page lists it: the user, with when and in what order it joined. */
export interface ParticipantEntry {
  user: UserRow
  joinedAt: string
  joinId: string
}

export type ProfileChanges = Partial<Pick<UserRow, 'name' | 'pictureUrl' | 'profile'>> & { updatedAt: string }

export interface UserQueries {
  find(integrationId: string, id: string): Promise<UserRow | undefined>
  findMany(integrationId: string, ids: readonly string[]): Promise<UserRow[]>
  /** The new row, or undefined when the id is taken. */
  insert(row: UserRow): Promise<UserRow | undefined>
  update(integrationId: string, id: string, changes: ProfileChanges): Promise<UserRow | undefined>
  /** Deletes the user with everything that cascades from it (owned conversations, messages, participations). */
  delete(integrationId: string, id: string): Promise<void>
  /** The bytes the user's messages and custom events take as stored (user_storage, kept by triggers). */
  storedBytes(integrationId: string, id: string): Promise<number>
  /** Whether the two users are participants of at least one same conversation. */
  shareAConversation(integrationId: string, userId: string, otherId: string): Promise<boolean>
}

/** A participation and, when the caller participates, a page of the conversation's messages (newest first). */
export interface ParticipationWithPage {
  participation: Participation
  page: MessageRow[]
}

export interface ConversationQueries {
  find(integrationId: string, id: string): Promise<ConversationRow | undefined>
  /** The new row, or undefined when the id is taken. */
  insert(row: ConversationRow): Promise<ConversationRow | undefined>
  /** Deletes the conversation with its participants, messages and events. */
  delete(integrationId: string, id: string): Promise<void>
  participation(integrationId: string, conversationId: string, userId: string): Promise<Participation>
  /** `participation` for many conversations at once, by conversation id (absent: no such conversation). */
  participations(integrationId: string, conversationIds: readonly string[], userId: string): Promise<Map<string, Participation>>
  /** `participation` and, when the user participates, a page of the conversation's messages: one statement. */
  participationWithPage(integrationId: string, conversationId: string, userId: string, window: KeysetWindow): Promise<ParticipationWithPage>
  /** The conversations the user participates in, newest first. */
  pageOfParticipant(integrationId: string, userId: string, window: KeysetWindow): Promise<ConversationRow[]>
}

export interface ParticipantQueries {
  /** False when the user already participates. */
  insert(row: ParticipantRow): Promise<boolean>
  exists(integrationId: string, conversationId: string, userId: string): Promise<boolean>
  /** False when the user did not participate. */
  delete(integrationId: string, conversationId: string, userId: string): Promise<boolean>
  /** The conversations the user participates in, with their owners. */
  conversationsOf(integrationId: string, userId: string): Promise<{ conversationId: string; ownerId: string }[]>
  /** A page of each conversation's participants, in the order they joined. */
  pages(integrationId: string, conversationIds: readonly string[], window: KeysetWindow): Promise<Map<string, ParticipantEntry[]>>
}

/** The log of a conversation's persisted signals (src/domain/signal-log.ts). */
export interface SignalLogQueries {
  insert(row: ConversationSignalRow): Promise<void>
  /** The conversation's rows from `id` on, that one included when it is there, oldest first: at most `limit`. */
  from(integrationId: string, conversationId: string, id: string, limit: number): Promise<ConversationSignalRow[]>
  /**
   * The conversation's messages with ids from `id` on, created at `notBefore` or later, each with
   * whether its author is a bot, in the order they were created: at most `limit` (a new message is
   * its own entry of the log: domain/signal-log.ts).
   */
  messagesFrom(integrationId: string, conversationId: string, id: string, notBefore: string, limit: number): Promise<{ message: MessageRow; isBot: boolean }[]>
  /** Deletes what the log says of a message (it was deleted: nothing of it is to be read again). */
  forgetMessage(integrationId: string, conversationId: string, messageId: string): Promise<void>
  /** Deletes the log's participant_added of a user in every chat integration of a workspace (it carried the user's name). */
  forgetParticipant(workspaceId: string, userId: string): Promise<void>
}

export interface MessageQueries {
  insert(row: MessageRow): Promise<void>
  /** Replaces a message's payload; the changed row, or undefined when there is none. */
  updatePayload(integrationId: string, id: string, payload: Record<string, unknown>): Promise<MessageRow | undefined>
  find(integrationId: string, id: string): Promise<MessageRow | undefined>
  /** Those of `ids` that exist, in no particular order. */
  findMany(integrationId: string, ids: readonly string[]): Promise<MessageRow[]>
  delete(integrationId: string, id: string): Promise<void>
  /** A page of each conversation's messages, newest first. */
  pages(integrationId: string, conversationIds: readonly string[], window: KeysetWindow): Promise<Map<string, MessageRow[]>>
  /** Sets (null: removes) the message's feedback; the message as it now is, or undefined when it does not exist. */
  setFeedback(integrationId: string, id: string, feedback: MessageFeedback | null): Promise<MessageRow | undefined>
  /** Replaces the message's payload and metadata; the message as it now is. */
  update(integrationId: string, id: string, changes: Pick<MessageRow, 'payload' | 'metadata'>): Promise<MessageRow | undefined>
}

export interface FileQueries {
  insert(row: FileRow): Promise<void>
  find(integrationId: string, id: string): Promise<FileRow | undefined>
  /** Marks the file uploaded, once: false when it was already (an upload URL is single-use) or does not exist. */
  markUploaded(integrationId: string, id: string, at: string): Promise<boolean>
  /** The ids of the files of a user (`userId`) or of a conversation, which go when it goes. */
  idsOfUser(integrationId: string, userId: string): Promise<string[]>
  /** The total announced size of a user's files, in bytes (their storage quota counts it). */
  sizeOfUser(integrationId: string, userId: string): Promise<number>
  idsOfConversation(integrationId: string, conversationId: string): Promise<string[]>
  /** Every file of a chat integration (its bot is being deleted). */
  idsOfIntegration(integrationId: string): Promise<string[]>
}

export interface EventQueries {
  insert(row: EventRow): Promise<void>
  find(integrationId: string, id: string): Promise<EventRow | undefined>
  /** A page of a conversation's custom events, newest first, keyset on (createdAt, id). */
  page(integrationId: string, conversationId: string, window: KeysetWindow): Promise<EventRow[]>
}

export type BotChanges = Partial<Omit<BotRow, 'id' | 'workspaceId' | 'createdAt'>>

/** A new bot: its optional columns (url, secrets) may be left out. */
export type NewBot = Omit<BotRow, OptionalBotColumn> & Partial<Pick<BotRow, OptionalBotColumn>>
type OptionalBotColumn = 'url' | 'signingSecret' | 'previousSigningSecret' | 'previousSigningSecretExpiresAt' | 'goneUrl' | 'protocol'

export interface BotQueries {
  insert(row: NewBot): Promise<void>
  find(workspaceId: string, id: string): Promise<BotRow | undefined>
  update(workspaceId: string, id: string, changes: BotChanges): Promise<BotRow | undefined>
  /** Deletes the bot with everything that cascades from it (its chat integration and all it holds); false when there was none. */
  delete(workspaceId: string, id: string): Promise<boolean>
  /** The bot's chat integration. */
  integrationOf(botId: string): Promise<ChatIntegrationRow | undefined>
  page(workspaceId: string, sort: { field: 'createdAt' | 'updatedAt'; direction: SortDirection }, window: KeysetWindow): Promise<BotRow[]>
  /** The bot answering a chat integration, with the integration. */
  ofIntegration(integrationId: string): Promise<{ bot: BotRow; integration: ChatIntegrationRow } | undefined>
  /** Turns delivery off while the bot's url is still `url` (it answered 410 Gone). */
  markUrlGone(id: string, url: string): Promise<void>
}

/**
 * A delivery whose turn has come, with the bot it goes to, the chat integration the bot acts in,
 * and the message it is about (null for other events, or once the message is deleted).
 */
export interface DueDelivery {
  delivery: BotDeliveryRow
  bot: BotRow
  integration: ChatIntegrationRow
  message: MessageRow | null
  /**
   * Whether another delivery of its conversation was queued behind it when it was read, where the
   * engine tells (PostgreSQL's claims): the holder of the head then claims the run behind it.
   */
  followed?: boolean
}

export interface BotDeliveryQueries {
  insert(row: Omit<BotDeliveryRow, 'seq'>): Promise<void>
  /**
   * Up to `limit` deliveries due at `now`, each the oldest of its conversation (the ones behind it
   * wait their turn), of bots whose delivery is on; the most overdue first.
   */
  due(now: string, limit: number): Promise<DueDelivery[]>
  /**
   * `due`, taken by this instance until `leaseUntil`: a delivery another instance holds (its lease
   * not yet run out) is neither due nor taken, and each delivery is held by one instance at a time.
   * A delivery's lease ends when it is rescheduled or removed. On an engine one process owns (SQLite)
   * it is `due`: the process's delivery worker never starts a delivery twice.
   */
  claim(now: string, limit: number, leaseUntil: string): Promise<DueDelivery[]>
  /**
   * When the next such delivery comes due after `now` (or its holder's lease runs out), if any does;
   * an engine may answer earlier than that (the look it causes finds nothing), never later.
   */
  nextDueAfter(now: string): Promise<string | undefined>
  /**
   * The run of deliveries right after `afterSeq` in its conversation, in their order, at most
   * `limit`: each due at `now`, its bot's delivery on, and the run ends before the first that is not
   * (never skipping one), taken by this instance until `leaseUntil` (as `claim` takes a
   * conversation's oldest). What the delivery worker takes as one batch (src/bots/delivery/batch.ts):
   * an instance sharing the database claims it with the head before it or in the unit that settles
   * the batch before it (whose removals hand the lease on to the conversation's head), and the run
   * also ends before one held by another instance (its lease not run out). On an engine one process
   * owns (SQLite) nothing is leased: it is a read.
   */
  claimFollowing(integrationId: string, conversationId: string, afterSeq: number, now: string, leaseUntil: string, limit: number): Promise<DueDelivery[]>
  /** False when it was already gone (its bot or conversation deleted). */
  reschedule(id: string, attempts: number, nextAttemptAt: string): Promise<boolean>
  /** False when it was already gone (its bot or conversation deleted). */
  remove(id: string): Promise<boolean>
  /** The outbox as an operator watches it (metrics): how many deliveries wait, and since when the oldest. */
  backlog(): Promise<{ pending: number; oldestCreatedAt: string | undefined }>
  /**
   * Keeps claimed deliveries their holder's until `leaseUntil`, those it still holds until
   * `heldUntil` (the lease their claim or last renewal set): how many it still held (not settled,
   * rescheduled, gone, nor taken by another instance once their lease ran out). Only an engine
   * several instances share holds leases (PostgreSQL); on SQLite a claim is a read, and this is
   * `ids.length`.
   */
  renew(ids: readonly string[], heldUntil: string, leaseUntil: string): Promise<number>
  /**
   * Gives up the lease of claimed deliveries still held until `heldUntil` that will not be attempted
   * (a batch stopped before them): the next claim takes them without waiting for the lease to run out.
   */
  release(ids: readonly string[], heldUntil: string): Promise<void>
}

/** The outbox of integration webhooks (src/db/queries/integration-webhooks.ts): only each integration's oldest is ever due. */
export interface IntegrationWebhookQueries {
  insert(row: Omit<IntegrationWebhookDeliveryRow, 'seq' | 'leasedUntil'>): Promise<void>
  /**
   * Up to `limit` deliveries due at `now`, each the oldest of its integration, held by nobody (or
   * by an instance whose lease ran out), taken by the caller until `leaseUntil`; most overdue first.
   */
  claim(now: string, limit: number, leaseUntil: string): Promise<IntegrationWebhookDeliveryRow[]>
  /** When the earliest head comes due (its attempt or the end of its lease), if there is any delivery. */
  nextDue(): Promise<string | undefined>
  /** Sets the next attempt and ends the lease; false when it was already gone (its integration deleted). */
  reschedule(id: string, attempts: number, nextAttemptAt: string): Promise<boolean>
  /** False when it was already gone. */
  remove(id: string): Promise<boolean>
  /** The integrations named, each with its bot. */
  targets(integrationIds: readonly string[]): Promise<{ integration: ChatIntegrationRow; bot: BotRow }[]>
}

/** The tags a bot sets on its conversations (the bot API): one row a tag. */
export interface ConversationTagQueries {
  ofConversations(integrationId: string, conversationIds: readonly string[]): Promise<ConversationTagRow[]>
  /** Sets a tag (replacing its value). */
  set(row: ConversationTagRow): Promise<void>
  remove(integrationId: string, conversationId: string, key: string): Promise<void>
  /** The distinct values of `key` across the integration's conversations, in byte order, after `after`, at most `limit`. */
  values(integrationId: string, key: string, after: string | undefined, limit: number): Promise<string[]>
}

export interface BotStateQueries {
  /** The bot's stored state for this conversation, this user and itself (the rows that exist). */
  find(botId: string, conversationId: string, userId: string): Promise<BotStateRow[]>
  /** Replaces (or creates) one scope's state, keeping its expiries. */
  put(row: Omit<BotStateRow, 'expiries' | 'expiresAt'>): Promise<void>
  /** Replaces (or creates) one scope's state with its expiries. */
  write(row: BotStateRow): Promise<void>
  /** Scopes whose first expiry is at or before `at`, soonest first, at most `limit`. */
  expiredBy(at: string, limit: number): Promise<BotStateRow[]>
  /** One scope's stored state, if any. */
  findScope(botId: string, scope: BotStateRow['scope'], scopeId: string): Promise<BotStateRow | undefined>
}

/** A bot API key with the bot it acts for and that bot's chat integration. */
export interface BotKeyHolder {
  key: BotApiKeyRow
  bot: BotRow
  integration: ChatIntegrationRow
}

export interface BotApiKeyQueries {
  insert(row: BotApiKeyRow): Promise<void>
  byHash(keyHash: string): Promise<BotKeyHolder | undefined>
  /** The bot's keys, oldest first. */
  ofBot(botId: string): Promise<BotApiKeyRow[]>
  /** Deletes a key of one of the workspace's bots; false when there was none. */
  delete(workspaceId: string, id: string): Promise<boolean>
}

/** Which of a bot's logs a page holds: from `timeStart` to `timeEnd` (both inclusive), the others filters when set. */
export interface BotLogFilter {
  timeStart: string
  timeEnd?: string
  conversationId?: string
  userId?: string
  level?: string
}

export interface BotLogQueries {
  insert(row: BotLogRow): Promise<void>
  /** A page of the bot's logs, newest first, keyset on (timestamp, id). */
  page(botId: string, filter: BotLogFilter, window: KeysetWindow): Promise<BotLogRow[]>
}

export interface BotEventQueries {
  insert(row: BotEventRow): Promise<void>
}

/** The keys of a chat integration that a key rotation changes (the webhook secret is sealed with the shared key). */
export type EncryptionKeys = Pick<ChatIntegrationRow, 'encryptionKey' | 'personalEncryptionKey' | 'previousEncryptionKeys' | 'webhookSecret'>

export interface TenancyQueries {
  anyWorkspace(): Promise<boolean>
  insertWorkspace(row: WorkspaceRow): Promise<void>
  insertAdminToken(row: AdminTokenRow): Promise<void>
  adminTokenByHash(tokenHash: string): Promise<AdminTokenRow | undefined>
  insertChatIntegration(row: ChatIntegrationRow): Promise<void>
  chatIntegrationByWebhook(webhookId: string): Promise<ChatIntegrationRow | undefined>
  /** What an operator is shown of every tenant (the command line's `credentials`): never a secret. */
  tenants(): Promise<TenantListing>
  deleteAdminToken(id: string): Promise<void>
  /** Sets (a string) or clears (null: back to the shared key) an integration's personal encryption key. */
  setPersonalEncryptionKey(integrationId: string, key: string | null): Promise<void>
  /** Sets the configuration's webhook: its url and its sealed secret (null: none). */
  setWebhook(integrationId: string, webhookUrl: string | null, webhookSecret: string | null): Promise<void>
  /** Sets the keys a rotation changes (`confab credentials`): the signing keys and the ones still verifying. */
  setEncryptionKeys(integrationId: string, keys: EncryptionKeys): Promise<void>
}

export interface TenantListing {
  workspaces: { id: string; name: string }[]
  /** Oldest first. */
  adminTokens: { id: string; workspaceId: string; createdAt: string }[]
  integrations: { workspaceId: string; botId: string; botName: string; webhookId: string }[]
}

/** Who handles a conversation (issue 52): the bot, the queue, an agent, or closed. */
export interface HandoffQueries {
  /**
   * Sets who handles the conversation, when it is now one of `from`: the conversation as it now is,
   * or undefined when it does not exist or is handled otherwise (a race lost, or nothing to change).
   */
  change(
    row: Pick<ConversationRow, 'integrationId' | 'id' | 'handledBy' | 'agentId' | 'handoffTitle' | 'handoffAt' | 'updatedAt'> & {
      from: readonly ConversationRow['handledBy'][]
    },
  ): Promise<ConversationRow | undefined>
  /**
   * Up to `limit` of a workspace's conversations handled so (of one agent, when `agentId` is given),
   * each with its bot, the longest handed off first.
   */
  ofWorkspace(
    workspaceId: string,
    handledBy: ConversationRow['handledBy'],
    agentId: string | undefined,
    limit: number,
  ): Promise<{ conversation: ConversationRow; botId: string; description: string | null }[]>
  /**
   * The conversations handed off, by who handles them (`waiting`, `agent`, `closed`; the bot's are
   * not counted), with the oldest `handoffAt` of each: what the metrics report.
   */
  census(): Promise<{ handledBy: ConversationRow['handledBy']; conversations: number; oldestHandoffAt: string | undefined }[]>
}

/** What the bot handed a conversation over with (hitl:startHitl), until the handoff ends. */
export interface HandoffRequestQueries {
  /** Records a request, replacing the conversation's last one. */
  put(row: HandoffRequestRow): Promise<void>
  find(integrationId: string, conversationId: string): Promise<HandoffRequestRow | undefined>
  delete(integrationId: string, conversationId: string): Promise<void>
  /** Marks the request answered at `at`: its `requestedAt` the first time, else undefined (answered already, or no request). */
  answered(integrationId: string, conversationId: string, at: string): Promise<string | undefined>
}

export interface AgentQueries {
  insert(row: AgentRow): Promise<void>
  byHash(keyHash: string): Promise<AgentRow | undefined>
  find(workspaceId: string, id: string): Promise<AgentRow | undefined>
  /** The workspace's agents, oldest first. */
  list(workspaceId: string, limit: number): Promise<AgentRow[]>
  /** False when there was none. */
  delete(workspaceId: string, id: string): Promise<boolean>
  /** Renames a user (`userId`, an agent's) in every chat integration of the workspace's bots, its picture and profile cleared. */
  renameUsers(workspaceId: string, userId: string, name: string, at: string): Promise<void>
}

export interface ConversationNoteQueries {
  insert(row: ConversationNoteRow): Promise<void>
  /** The conversation's notes, oldest first. */
  ofConversation(integrationId: string, conversationId: string, limit: number): Promise<ConversationNoteRow[]>
}

export interface Queries {
  users: UserQueries
  conversations: ConversationQueries
  participants: ParticipantQueries
  messages: MessageQueries
  events: EventQueries
  signalLog: SignalLogQueries
  files: FileQueries
  bots: BotQueries
  botEvents: BotEventQueries
  botDeliveries: BotDeliveryQueries
  integrationWebhooks: IntegrationWebhookQueries
  conversationTags: ConversationTagQueries
  botLogs: BotLogQueries
  botStates: BotStateQueries
  botApiKeys: BotApiKeyQueries
  tenancy: TenancyQueries
  erasure: ErasureQueries
  userRecords: UserRecordQueries
  retention: RetentionQueries
  handoffs: HandoffQueries
  agents: AgentQueries
  conversationNotes: ConversationNoteQueries
  handoffRequests: HandoffRequestQueries
  /** A chat integration's version, read alone or with the statement it fences (what a shared store's instances check: integration-cache.ts). */
  integrationVersions: IntegrationVersionQueries
}

/**
 * A chat integration's version: a token that changes with every write of its row (PostgreSQL's
 * `xmin`; on SQLite the thread's count of bot and integration changes), so that an instance may keep the integration in memory and check in the first statement
 * of a request that it is still the one in the database (src/domain/integration-cache.ts).
 */
export interface IntegrationVersionQueries {
  /** The integration by webhook id, with its version. */
  byWebhook(webhookId: string): Promise<{ integration: ChatIntegrationRow; version: string } | undefined>
  /** The integration's version now: undefined when it is gone. */
  version(integrationId: string): Promise<string | undefined>
  /** `conversations.participation` with the integration's version, read in the same statement (absent when the conversation is). */
  participation(integrationId: string, conversationId: string, userId: string): Promise<Participation & { integrationVersion?: string }>
  /** `conversations.participationWithPage` with the integration's version (absent when the conversation is). */
  participationWithPage(
    integrationId: string,
    conversationId: string,
    userId: string,
    window: KeysetWindow,
  ): Promise<ParticipationWithPage & { integrationVersion?: string }>
  /** `conversations.participations` with the integration's version (absent when none of the conversations exists). */
  participations(
    integrationId: string,
    conversationIds: readonly string[],
    userId: string,
  ): Promise<{ found: Map<string, Participation>; integrationVersion?: string }>
}

/** What a closed store answers every call with. */
export const storeClosed = () => new Error('the store is closed')

/** Where an `after` effect's failure goes unless told otherwise: thrown on its own, as an uncaught error (its unit has committed). */
export const reportLater = (error: unknown) =>
  queueMicrotask(() => {
    throw error
  })

/** Registers what to do once the unit has committed (publishing signals): never if it rolls back. */
export type After = (effect: () => void) => void

/**
 * The `after` of one unit of work, for an engine: it collects effects while the unit is open;
 * `run` (once committed) performs them in order, each failure told to `onError` alone.
 */
export function unitEffects() {
  const effects: (() => void)[] = []
  let open = true
  const after: After = (effect) => {
    if (!open) throw new Error('after() was called once its unit of work had ended')
    effects.push(effect)
  }
  return {
    after,
    /** The unit has ended: no more effects. */
    close() {
      open = false
    },
    run(onError: (error: unknown) => void) {
      open = false
      for (const effect of effects) {
        try {
          effect()
        } catch (error) {
          onError(error)
        }
      }
    },
  }
}

export interface Store {
  /** The bytes of uploaded files, kept beside the database. */
  readonly files: FileBytes
  /** Resolves when the database answers and its migrations are applied (GET /readyz); rejects otherwise. */
  check(): Promise<void>
  /** Runs reads on committed data; a unit of work's rows are seen once its commit is done. */
  read<T>(work: (q: Queries) => Promise<T>): Promise<T>
  /**
   * Runs a unit of work: all of its writes commit together or not at all, whatever the work
   * throws rolls back the unit alone, and the promise settles once the unit is durable (or not).
   * The work must reach the database through `q` only, and must not wait on another unit.
   */
  write<T>(work: (q: Queries, after: After) => Promise<T>): Promise<T>
  /**
   * A unit of work of one statement, atomic by itself (a claim, a lease's renewal): the work sends
   * exactly one statement through `q`. PostgreSQL runs it without BEGIN and COMMIT, two round trips
   * fewer; SQLite as a unit of work of its group commit.
   */
  writeStatement<T>(work: (q: Queries) => Promise<T>): Promise<T>
  /** Finishes the units already submitted, then closes; later calls are refused. */
  close(): Promise<void>
  /**
   * The store for work in the background (the delivery worker, retention) on connections of its own,
   * closed with this one (PostgreSQL); on SQLite, this store (one writing connection).
   */
  background(): Store
}

/** Told of every statement an engine runs: its SQL and parameters (statement counts, debugging). */
export type QueryLog = (sql: string, params: unknown[]) => void

/** What every engine's store is opened with. */
export interface EngineOptions {
  onQuery?: QueryLog
  /** Where an `after` effect that throws is reported (reportLater by default): its unit has committed and cannot fail any more. */
  onEffectError?: (error: unknown) => void
}

/**
 * A store as its engine opens it, with the capability the server's parts are chosen by, once, in
 * wiring (src/wiring.ts): nothing below it (domain, GraphQL, bots) asks the store what it is.
 */
export interface EngineStore extends Store {
  /**
   * Whether several processes may share the database (PostgreSQL): each then sees the others'
   * writes only through the database. Wiring then leases bot deliveries (and looks for others' on a
   * timer) and keeps chat integrations with their versions.
   */
  readonly shared: boolean
}

/* Erasure, a user's records and retention (src/db/queries/erasure.ts, user-records.ts, retention.ts). */

/** Where a user's or a conversation's content lies beyond the rows its foreign keys take along. */
export interface ErasureScope {
  integrationId: string
  /** The bot answering the integration: bot logs and states are kept by bot. */
  botId: string
}

export interface ErasureQueries {
  /** The ids of the conversations the user owns (which go with it), whether it still participates in them or not. */
  ownedConversations(integrationId: string, userId: string): Promise<string[]>
  /**
   * Deletes what holds the user's content that no foreign key takes with its row: the bot events
   * (payloads, previews), bot logs, pending deliveries and bot state of the user.
   */
  userTraces(scope: ErasureScope, userId: string): Promise<void>
  /** The same for a conversation: its bot events, bot logs and bot state (its deliveries go with its row). */
  conversationTraces(scope: ErasureScope, conversationId: string): Promise<void>
  /** The bot events of a message (what was handed to the bot, what it sent back): payloads and previews of its text. */
  messageTraces(integrationId: string, conversationId: string, messageId: string): Promise<void>
  /** Records that the user was deleted (its id as a digest only). */
  bury(integrationId: string, userId: string, at: string): Promise<void>
  /** When the user was deleted, if it was. */
  burial(integrationId: string, userId: string): Promise<Pick<DeletedUserRow, 'deletedAt'> | undefined>
}

/** One conversation of a user's records: the conversation, who is in it, and all that was said. */
export interface ConversationRecord {
  conversation: ConversationRow
  participantIds: string[]
  /** Oldest first. */
  messages: MessageRow[]
  /** Oldest first. */
  events: EventRow[]
  /** Agents' notes on it, oldest first. */
  notes: ConversationNoteRow[]
  /** What the bot handed it over with, while handed off. */
  handoffRequest: HandoffRequestRow | undefined
}

export interface UserRecordQueries {
  /** A page of the integration's users (its bot's own user aside), newest first. */
  usersPage(integrationId: string, window: KeysetWindow): Promise<UserRow[]>
  /** A page of the integration's conversations, newest first. */
  conversationsPage(integrationId: string, window: KeysetWindow): Promise<ConversationRow[]>
  /** Every conversation the user participates in, oldest first, with all it holds. */
  conversationsOf(integrationId: string, userId: string): Promise<ConversationRecord[]>
  /** The user's files (their rows), oldest first. */
  filesOf(integrationId: string, userId: string): Promise<FileRow[]>
}

/** The rows retention prunes by age. */
export type PrunedTable = 'messages' | 'events' | 'botEvents' | 'botLogs' | 'files' | 'conversationSignals'

/** Where a prune cycle goes on in a table: the conversation (by key) its next batch starts with. */
export interface PruneCursor {
  integrationId: string
  conversationId: string
}

export interface RetentionQueries {
  /**
   * Deletes up to `limit` of the rows of `table` made before `before`: of a conversation's tables,
   * those of at most `limit` conversations from `from` on (the first, when absent); of bot logs, any
   * bot's; of files, any user's (their ids, `files`, whose bytes go once committed). How many it
   * deleted, and where the next batch starts (none: nothing older is left).
   */
  prune(table: PrunedTable, before: string, limit: number, from?: PruneCursor): Promise<{ deleted: number; next: PruneCursor | undefined; files?: string[] }>
}
