import type { ConversationRow, EventRow } from '../db/schema.ts'
import type { After, Queries } from '../db/store.ts'
import { incomingCustomEvent } from './bots/delivery/event.ts'
import { recordIncomingEvent, recordSkippedEvent } from './bots/delivery/outbox.ts'
import { now } from './clock.ts'
import type { ChatContext } from './context.ts'
import { type Poster, requireParticipation } from './conversations.ts'
import { hiddenAs, notFound } from './errors.ts'
import { botAnswers } from './handoff.ts'
import { newId } from './ids.ts'
import { tell } from './integration-webhooks.ts'
import { loadParticipation } from './loaders.ts'
import { assertJsonDepth } from './payloads.ts'
import { checkStorageQuota, storedEventBytes } from './storage-quota.ts'
import { requireCallerId } from './users.ts'

export interface CreateEventInput {
  conversationId: string
  payload: Record<string, unknown>
}

/**
 * Inside a unit: posts a custom event (a free-form object payload) as the caller, who must
 * participate; a user's event is recorded for the bot in the same unit, or, while a person handles
 * the conversation, recorded as skipped (as a user's message is: docs/guides/handoff.md).
 */
export async function postEvent(
  ctx: ChatContext,
  q: Queries,
  after: After,
  input: CreateEventInput,
  poster?: Poster,
  /** Who handles the conversation, when the caller read it already (else read here for a user's event). */
  handled?: Pick<ConversationRow, 'handledBy'>,
): Promise<EventRow> {
  const known = poster ? { caller: poster, conversation: handled } : await requireParticipation(ctx, q, input.conversationId)
  const caller = known.caller
  const row: EventRow = {
    integrationId: ctx.integration.id,
    id: newId(),
    conversationId: input.conversationId,
    userId: caller.id,
    payload: input.payload,
    createdAt: now(),
  }
  await q.events.insert(row)
  await tell(ctx, q, after, { type: 'event_created', conversationId: row.conversationId, event: row, isBot: caller.isBot })
  if (!caller.isBot) {
    const { handledBy } = known.conversation ?? (await requireParticipation(ctx, q, input.conversationId)).conversation
    // The custom event's own id: a bot (an @botpress/sdk one calls getEvent) finds it by the id it was delivered with.
    const event = incomingCustomEvent(ctx.integration.botId, row.id, row)
    if (botAnswers(handledBy)) await recordIncomingEvent(ctx, q, after, event)
    else await recordSkippedEvent(ctx, q, event, handledBy)
  }
  return row
}

/** An event payload is any JSON object, nested no deeper than the limit (400 otherwise). */
export function checkEvent(input: CreateEventInput): CreateEventInput {
  assertJsonDepth(input.payload, 'payload')
  return input
}

/** A custom event, posted by a participant. */
export async function createEvent({ ctx, input }: { ctx: ChatContext; input: CreateEventInput }): Promise<EventRow> {
  const event = checkEvent(input)
  return ctx.store.write(async (q, after) => {
    // Before the reads: a caller without a key throws here, not beside a read left to reject unheard.
    const callerId = requireCallerId(ctx)
    // Read together (PostgreSQL pipelines them: one round trip, not two).
    const [{ caller, conversation }] = await Promise.all([
      requireParticipation(ctx, q, event.conversationId),
      checkStorageQuota(ctx, q, callerId, storedEventBytes(event)),
    ])
    return postEvent(ctx, q, after, event, caller, conversation)
  })
}

export async function getEvent({ ctx, id }: { ctx: ChatContext; id: string }): Promise<EventRow> {
  const row = await ctx.store.read((q) => q.events.find(ctx.integration.id, id))
  if (!row) throw notFound('Event', id)
  await loadParticipation(ctx, row.conversationId).catch(hiddenAs('Event', id))
  return row
}
