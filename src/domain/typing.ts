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
  if (timeoutMs != null && (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > maxTypingTimeoutMs)) {
    throw invalidPayload(`timeout must be from 1 to ${maxTypingTimeoutMs} milliseconds`)
  }
  const { caller } = await loadParticipation(ctx, conversationId)
  ctx.signals.publish(
    ctx.integration.id,
    typing
      ? { type: 'typing_started', conversationId, userId: caller.id, timeout: timeoutMs ?? defaultTypingTimeoutMs }
      : { type: 'typing_stopped', conversationId, userId: caller.id },
  )
}
