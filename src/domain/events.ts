import { and, eq } from 'drizzle-orm'
import { events, type EventRow } from '../db/schema.ts'
import { now } from './clock.ts'
import type { ChatContext } from './context.ts'
import { requireParticipation } from './conversations.ts'
import { notFound } from './errors.ts'
import { newId } from './ids.ts'
import { assertJsonDepth } from './payloads.ts'

export interface CreateEventInput {
  conversationId: string
  payload: Record<string, unknown>
}

/** A custom event: a free-form object payload, posted by a participant. */
export function createEvent({ ctx, input }: { ctx: ChatContext; input: CreateEventInput }): EventRow {
  assertJsonDepth(input.payload, 'payload')
  const { caller } = requireParticipation(ctx, input.conversationId)
  const row: EventRow = {
    integrationId: ctx.integration.id,
    id: newId(),
    conversationId: input.conversationId,
    userId: caller.id,
    payload: input.payload,
    createdAt: now(),
  }
  ctx.db.insert(events).values(row).run()
  ctx.signals.publish(ctx.integration.id, {
    type: 'event_created',
    conversationId: row.conversationId,
    event: row,
    isBot: caller.isBot,
  })
  return row
}

export function getEvent({ ctx, id }: { ctx: ChatContext; id: string }): EventRow {
  const row = ctx.db
    .select()
    .from(events)
    .where(and(eq(events.integrationId, ctx.integration.id), eq(events.id, id)))
    .get()
  if (!row) throw notFound('Event', id)
  requireParticipation(ctx, row.conversationId)
  return row
}
