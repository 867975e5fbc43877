import { decodeTime } from 'ulid'
import type { MessageRow } from '../db/schema.ts'
import type { Queries } from '../db/store.ts'
import { now } from './clock.ts'
import type { ChatContext } from './context.ts'
import { newId } from './ids.ts'
import type { ConversationSignal, ResyncReason } from './signals.ts'

/*
 * The log of persisted signals, which lets a listener that reconnects get what it missed (SSE
 * `Last-Event-ID`, the `since` cursor of the WebSocket /listen and of conversationSignals). Each row
 * is written in the unit of the change it tells, so its id is the committed log's own on every
 * engine and instance; it is published with that id once committed. A new message is its own entry:
 * its row is written in that unit under an id of the same clock (ownEntry), so its message_created
 * is published with the message's id and replayed from the messages, and the log's hottest signal
 * costs no second row. Transient signals (typing, message streams' deltas, a message's status) are
 * not logged, and never replayed.
 */

/** The signals that tell of stored state: logged, and replayed to a listener that resumes. */
export type LoggedSignal = Extract<
  ConversationSignal,
  { type: 'message_created' | 'message_updated' | 'message_deleted' | 'event_created' | 'participant_added' | 'participant_removed' }
>

/** How long the log keeps a signal: a cursor older than this is told to resync (docs/guides/streaming.md#resuming). */
export const SIGNAL_LOG_WINDOW_MS = 24 * 3_600_000

/** The most signals a resume replays: a listener that missed more reads the conversation again. */
export const SIGNAL_REPLAY_MAX = 200

/** A cursor is one of the log's ids: a ULID (26 characters of Crockford base32). */
const cursorPattern = /^[0-9A-HJKMNP-TV-Z]{26}$/

/** How far a new message's id may be from its createdAt (both read from the clock as it is made). */
const OWN_ENTRY_SKEW_MS = 1_000

/**
 * Whether a message is its own entry of the log: an id Confab made as it was created (a ULID of that
 * moment). One a bot chose (getOrCreateMessage's `tags.id`) is not, and its message_created is logged.
 */
function ownEntry(message: MessageRow): boolean {
  return cursorPattern.test(message.id) && Math.abs(decodeTime(message.id) - Date.parse(message.createdAt)) <= OWN_ENTRY_SKEW_MS
}

/** Whom a signal is about (its rows go with that user) and the message it tells of (its rows go with it). */
function subjectOf(signal: LoggedSignal): { userId: string; messageId: string | null } {
  switch (signal.type) {
    case 'message_created':
    case 'message_updated':
      return { userId: signal.message.userId, messageId: signal.message.id }
    case 'message_deleted':
      return { userId: signal.message.userId, messageId: null }
    case 'event_created':
      return { userId: signal.event.userId, messageId: null }
    case 'participant_added':
    case 'participant_removed':
      return { userId: signal.participantId, messageId: null }
  }
}

/** Whether a signal tells of stored state, and so is logged (and replayed to a listener that resumes). */
export const isLogged = (signal: ConversationSignal): signal is LoggedSignal => loggedTypes.has(signal.type)

const loggedTypes: ReadonlySet<ConversationSignal['type']> = new Set([
  'message_created',
  'message_updated',
  'message_deleted',
  'event_created',
  'participant_added',
  'participant_removed',
])

/**
 * Inside a unit: logs a signal with the change it tells; returns it with its log id, which it is to be
 * published with once the unit has committed (see tell, domain/integration-webhooks.ts). A message's
 * deletion forgets what the log said of it (its payloads), then logs the deletion with none of its content.
 */
export async function logSignal(integrationId: string, q: Queries, signal: LoggedSignal): Promise<LoggedSignal> {
  if (signal.type === 'message_created' && ownEntry(signal.message)) return { ...signal, signalId: signal.message.id }
  const signalId = newId()
  const { userId, messageId } = subjectOf(signal)
  const { signalId: _none, ...kept } = signal
  let stored: Record<string, unknown> = kept
  if (signal.type === 'message_deleted') {
    await q.signalLog.forgetMessage(integrationId, signal.conversationId, signal.message.id)
    stored = { ...kept, message: { ...signal.message, payload: {}, metadata: null, feedback: null } }
  }
  await q.signalLog.insert({
    integrationId,
    id: signalId,
    conversationId: signal.conversationId,
    userId,
    messageId,
    type: signal.type,
    signal: stored,
    createdAt: now(),
  })
  return { ...signal, signalId }
}

const resync = (conversationId: string, reason: ResyncReason): ConversationSignal[] => [{ type: 'resync', conversationId, reason }]

/**
 * What a listener that last heard `since` missed of a conversation (its participation already
 * checked), oldest first; or a single `resync` when that cannot be told: the cursor is not one of the
 * conversation's, is older than the log's window, or more than SIGNAL_REPLAY_MAX signals were missed.
 */
export async function missedSignals(ctx: ChatContext, conversationId: string, since: string): Promise<ConversationSignal[]> {
  if (!cursorPattern.test(since)) return resync(conversationId, 'unknown_cursor')
  if (decodeTime(since) < Date.parse(now()) - SIGNAL_LOG_WINDOW_MS) return resync(conversationId, 'too_old')
  const notBefore = new Date(decodeTime(since) - OWN_ENTRY_SKEW_MS).toISOString()
  const [rows, messages] = await ctx.store.read((q) =>
    Promise.all([
      q.signalLog.from(ctx.integration.id, conversationId, since, SIGNAL_REPLAY_MAX + 2),
      q.signalLog.messagesFrom(ctx.integration.id, conversationId, since, notBefore, SIGNAL_REPLAY_MAX + 2),
    ]),
  )
  // Each read holds the first of its kind from the cursor on: merged, they hold the first of both.
  const entries: { id: string; signal: LoggedSignal }[] = []
  for (const row of rows) {
    const signal = { ...(row.signal as LoggedSignal), conversationId }
    // A message's own entry logged before messages were (Confab 0.3.0): the messages tell it now.
    if (row.id !== since && signal.type === 'message_created' && ownEntry(signal.message)) continue
    entries.push({ id: row.id, signal })
  }
  for (const { message, isBot } of messages) {
    if (ownEntry(message)) entries.push({ id: message.id, signal: { type: 'message_created', conversationId, message, isBot } })
  }
  entries.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  if (entries[0]?.id !== since) return resync(conversationId, 'unknown_cursor')
  if (entries.length > SIGNAL_REPLAY_MAX + 1) return resync(conversationId, 'too_many')
  return entries.slice(1, SIGNAL_REPLAY_MAX + 1).map(({ id, signal }) => ({ ...signal, signalId: id }))
}

/**
 * A resumed listener's signals: `missed` first, then the live ones less those `missed` told already.
 * `live` must be listening before `missed` was read (its first read, `first`, opened it), so that a
 * signal committed meanwhile is heard once, with no gap between the replay and the live stream.
 */
export function resumed(
  live: AsyncIterableIterator<ConversationSignal>,
  first: Promise<IteratorResult<ConversationSignal>>,
  missed: ConversationSignal[],
): AsyncIterableIterator<ConversationSignal> {
  const told = new Set(missed.map((signal) => signal.signalId))
  const replay = [...missed]
  let pending: Promise<IteratorResult<ConversationSignal>> | undefined = first
  const iterator: AsyncIterableIterator<ConversationSignal> = {
    async next() {
      const replayed = replay.shift()
      if (replayed) return { done: false, value: replayed }
      for (;;) {
        const next = await (pending ?? live.next())
        pending = undefined
        if (next.done || next.value.signalId === undefined || !told.has(next.value.signalId)) return next
      }
    },
    return: async () => (await live.return?.()) ?? { done: true, value: undefined },
    [Symbol.asyncIterator]: () => iterator,
  }
  return iterator
}
