import type { ChatContext } from './context.ts'
import { forbidden, notFound } from './errors.ts'

/**
 * The refusal of a caller who is not a participant of conversation `conversationId`, which exists.
 * 404 by default: answered as a conversation that does not exist, so that a stranger cannot tell
 * which ids do (issue 49). 403 (NON_PARTICIPANT_STATUS=403) is Botpress' answer, a ForbiddenError,
 * for clients and tests written against Botpress that expect it; it tells that the conversation exists.
 */
export const nonParticipant = (ctx: Pick<ChatContext, 'nonParticipantStatus'>, conversationId: string) =>
  ctx.nonParticipantStatus === 403 ? forbidden(`the caller is not a participant of conversation "${conversationId}"`) : notFound('Conversation', conversationId)
