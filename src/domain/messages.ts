import { and, eq } from 'drizzle-orm'
import { messages, type MessageRow } from '../db/schema.ts'
import { now } from './clock.ts'
import type { ChatContext } from './context.ts'
import { requireParticipation } from './conversations.ts'
import { notFound } from './errors.ts'
import { newId } from './ids.ts'
import { parseMessagePayload } from './payloads.ts'

export interface CreateMessageInput {
  conversationId: string
  payload: unknown
  metadata?: Record<string, unknown> | null
}

/** Only participants post; the payload is checked against its kind and stored exactly as given. */
export function createMessage({ ctx, input }: { ctx: ChatContext; input: CreateMessageInput }): MessageRow {
  const payload = parseMessagePayload(input.payload)
  const { caller } = requireParticipation(ctx, input.conversationId)
  const row: MessageRow = {
    integrationId: ctx.integration.id,
    id: newId(),
    conversationId: input.conversationId,
    userId: caller.id,
    payload,
    metadata: input.metadata ?? null,
    createdAt: now(),
  }
  ctx.db.insert(messages).values(row).run()
  return row
}

/** A message is visible to the participants of its conversation. */
export function getMessage({ ctx, id }: { ctx: ChatContext; id: string }): MessageRow {
  const row = ctx.db
    .select()
    .from(messages)
    .where(and(eq(messages.integrationId, ctx.integration.id), eq(messages.id, id)))
    .get()
  if (!row) throw notFound('Message', id)
  requireParticipation(ctx, row.conversationId)
  return row
}
