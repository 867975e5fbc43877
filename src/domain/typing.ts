import type { ChatContext } from './context.ts'
import { invalidPayload } from './errors.ts'
import { loadParticipation } from './loaders.ts'

/** How long a typing indicator lasts when its sender names no timeout, and the longest it may ask for. */
export const defaultTypingTimeoutMs = 5_000
export const maxTypingTimeoutMs = 60_000

/**
 * A participant starts or stops typing in a conversation (a bot, through its own key, shows the
 * web chat's indicator so). Nothing is stored: the other listeners are told, and that is all.
 */
const checkTimeout = (timeoutMs: number | null | undefined) => {
  if (timeoutMs != null && (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > maxTypingTimeoutMs)) {
    throw invalidPayload(`timeout must be from 1 to ${maxTypingTimeoutMs} milliseconds`)
  }
}

const publishTyping = (ctx: ChatContext, conversationId: string, userId: string, typing: boolean, timeoutMs?: number | null) =>
  ctx.signals.publish(
    ctx.integration.id,
    typing
      ? { type: 'typing_started', conversationId, userId, timeout: timeoutMs ?? defaultTypingTimeoutMs }
      : { type: 'typing_stopped', conversationId, userId },
  )

/** Someone the caller vouches for types in the conversation: the bot, or an agent in a conversation it holds. */
export function typingAs(ctx: ChatContext, conversationId: string, userId: string, typing: boolean, timeoutMs?: number | null): void {
  checkTimeout(timeoutMs)
  publishTyping(ctx, conversationId, userId, typing, timeoutMs)
}

/** The bot types in the conversation of an event it handles (before it has joined, too). */
export const botTyping = (ctx: ChatContext, conversationId: string, typing: boolean, timeoutMs?: number | null): void =>
  typingAs(ctx, conversationId, ctx.integration.botId, typing, timeoutMs)

export async function setTyping({
  ctx,
  conversationId,
  typing,
  timeoutMs,
}: {
  ctx: ChatContext
  conversationId: string
  typing: boolean
  timeoutMs?: number | null
}): Promise<void> {
  checkTimeout(timeoutMs)
  const { caller } = await loadParticipation(ctx, conversationId)
  publishTyping(ctx, conversationId, caller.id, typing, timeoutMs)
}
