import { and, eq } from 'drizzle-orm'
import { messages, type MessageRow } from '../db/schema.ts'
import { now } from './clock.ts'
import type { ChatContext } from './context.ts'
import { requireParticipation } from './conversations.ts'
import { forbidden, notFound } from './errors.ts'
import { newId } from './ids.ts'
import { loadMessagesPage } from './loaders.ts'
import type { Cursored, PageWindow } from './paging.ts'
import { assertJsonDepth, parseMessagePayload } from './payloads.ts'

export interface CreateMessageInput {
  conversationId: string
  payload: unknown
  metadata?: Record<string, unknown> | null
}

/** Only participants post; the payload is checked against its kind and stored exactly as given. */
export function createMessage({ ctx, input }: { ctx: ChatContext; input: CreateMessageInput }): MessageRow {
  const payload = parseMessagePayload(input.payload)
  if (input.metadata != null) assertJsonDepth(input.metadata, 'metadata')
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
  ctx.signals.publish(ctx.integration.id, {
    type: 'message_created',
    conversationId: row.conversationId,
    message: row,
    isBot: caller.isBot,
  })
  return row
}

function findMessage(ctx: ChatContext, id: string): MessageRow {
  const row = ctx.db
    .select()
    .from(messages)
    .where(and(eq(messages.integrationId, ctx.integration.id), eq(messages.id, id)))
    .get()
  if (!row) throw notFound('Message', id)
  return row
}

/** A message is visible to the participants of its conversation. */
export function getMessage({ ctx, id }: { ctx: ChatContext; id: string }): MessageRow {
  const row = findMessage(ctx, id)
  requireParticipation(ctx, row.conversationId)
  return row
}

/** Only the author deletes a message. */
export function deleteMessage({ ctx, id }: { ctx: ChatContext; id: string }): void {
  const row = findMessage(ctx, id)
  const { caller } = requireParticipation(ctx, row.conversationId)
  if (row.userId !== caller.id) throw forbidden(`only the author of message "${id}" may delete it`)
  ctx.db
    .delete(messages)
    .where(and(eq(messages.integrationId, ctx.integration.id), eq(messages.id, id)))
    .run()
  ctx.signals.publish(ctx.integration.id, { type: 'message_deleted', conversationId: row.conversationId, message: row })
}

/** A conversation's messages, newest first: the first page is what a chat view shows (batched per request). */
export function listMessages({
  ctx,
  conversationId,
  window,
}: {
  ctx: ChatContext
  conversationId: string
  window: PageWindow
}): Promise<Cursored<MessageRow>[]> {
  return loadMessagesPage(ctx, conversationId, window)
}
