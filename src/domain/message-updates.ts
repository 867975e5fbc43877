import type { MessageFeedback, MessageRow } from '../db/schema.ts'
import type { After, Queries } from '../db/store.ts'
import type { ChatContext } from './context.ts'
import { requireParticipation } from './conversations.ts'
import { forbidden, hiddenAs, invalidPayload } from './errors.ts'
import { tell } from './integration-webhooks.ts'
import { checkMessage, checkMessageSize, findMessage } from './messages.ts'
import { checkStorageQuota, storedMessageBytes } from './storage-quota.ts'

const publishUpdated = (ctx: ChatContext, q: Queries, after: After, message: MessageRow, isBot: boolean) =>
  tell(ctx, q, after, { type: 'message_updated', conversationId: message.conversationId, message, isBot })

/** Whether the message's author is the bot (what message_updated says of it). */
async function authoredByBot(ctx: ChatContext, q: Queries, message: MessageRow): Promise<boolean> {
  return (await q.users.find(ctx.integration.id, message.userId))?.isBot ?? false
}

export const feedbackValues = ['positive', 'negative'] as const

/** Feedback is `{value: "positive" | "negative", comment?}` (400 otherwise). */
export function checkFeedback(input: { value: unknown; comment?: unknown }): MessageFeedback {
  if (input.value !== 'positive' && input.value !== 'negative') {
    throw invalidPayload('feedback value must be "positive" or "negative"')
  }
  if (input.comment != null && typeof input.comment !== 'string') throw invalidPayload('feedback comment must be a string')
  return input.comment == null ? { value: input.value } : { value: input.value, comment: input.comment }
}

/**
 * A participant sets (or, with null, removes) the feedback of a message of the conversation; the
 * message, which carries it from then on, is signalled as updated.
 */
export function setMessageFeedback({ ctx, id, feedback }: { ctx: ChatContext; id: string; feedback: MessageFeedback | null }): Promise<MessageRow> {
  return ctx.store.write(async (q, after) => {
    const row = await findMessage(ctx, q, id)
    await requireParticipation(ctx, q, row.conversationId).catch(hiddenAs('Message', id))
    const updated = (await q.messages.setFeedback(ctx.integration.id, id, feedback)) as MessageRow
    await publishUpdated(ctx, q, after, updated, await authoredByBot(ctx, q, updated))
    return updated
  })
}

/** Only the author updates a message: its payload (checked as when posted) and metadata are replaced. */
export function updateMessage({
  ctx,
  id,
  input,
}: {
  ctx: ChatContext
  id: string
  input: { payload: unknown; metadata?: Record<string, unknown> | null }
}): Promise<MessageRow> {
  return ctx.store.write(async (q, after) => {
    const row = await findMessage(ctx, q, id)
    const { caller } = await requireParticipation(ctx, q, row.conversationId).catch(hiddenAs('Message', id))
    if (row.userId !== caller.id) throw forbidden(`only the author of message "${id}" may update it`)
    const { payload, metadata } = checkMessage({ conversationId: row.conversationId, ...input })
    checkMessageSize({ payload, metadata }, ctx.limits?.messageMaxBytes ?? 0)
    await checkStorageQuota(ctx, q, caller.id, storedMessageBytes({ payload, metadata }) - storedMessageBytes(row))
    const updated = (await q.messages.update(ctx.integration.id, id, { payload, metadata })) as MessageRow
    await publishUpdated(ctx, q, after, updated, caller.isBot)
    return updated
  })
}
