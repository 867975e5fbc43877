import type { ConversationRow, MessageRow, UserRow } from '../db/schema.ts'
import type { ChatContext } from './context.ts'
import { createConversation, getConversation } from './conversations.ts'
import { DomainError, unauthorized } from './errors.ts'
import { encryptionModeOf } from './key-modes.ts'
import { listMessages } from './messages.ts'
import { listParticipants } from './participants.ts'
import { createUser, getCaller, getOrCreateUser } from './users.ts'

/** What the official web chat's `init` message holds: its conversation as it stands. */
export interface WebchatSession {
  user: UserRow
  conversation: ConversationRow
  /** Newest first, as the web chat reverses them. */
  messages: MessageRow[]
  participants: UserRow[]
}

/** How many messages and participants `init` carries (the web chat shows what it is given). */
export const initPageSize = 100

/** Why a first visit without a key is refused in personal mode. */
export const firstVisitRefusal =
  'This chat integration has a personal encryption key: a visit without a user key cannot create a user. Give the ' +
  'web chat a user key signed with that key (x-user-key), so that nobody but the users it signs keys for can chat with the bot.'

/**
 * The web chat's start: a caller without a key becomes a new user (the caller of the returned
 * context), unless the integration signs with a personal key (401, as createUser). In personal mode
 * a key its operator signed may name a user who has not visited yet: that user is made then, as
 * getOrCreateUser makes it.
 */
export async function startWebchat({ ctx }: { ctx: ChatContext }): Promise<{ ctx: ChatContext; createdUser: boolean }> {
  if (ctx.callerId !== undefined) {
    if (encryptionModeOf(ctx.integration) === 'personal') await getOrCreateUser({ ctx, input: {} })
    else await getCaller({ ctx })
    return { ctx, createdUser: false }
  }
  if (encryptionModeOf(ctx.integration) === 'personal') throw unauthorized(firstVisitRefusal)
  const user = await createUser({ ctx, input: {} })
  return { ctx: { ...ctx, callerId: user.id, memo: {} }, createdUser: true }
}

/**
 * The conversation the web chat resumes (`conversationId`), or a new one the caller owns when none
 * is named or it is gone. One the caller does not participate in is answered as gone (a new one), so
 * that the answer never tells whether another user's conversation exists.
 */
export async function openWebchatConversation({ ctx, conversationId }: { ctx: ChatContext; conversationId?: string | null }): Promise<ConversationRow> {
  if (conversationId) {
    try {
      return await getConversation({ ctx, id: conversationId })
    } catch (error) {
      if (!(error instanceof DomainError && error.type === 'ResourceNotFound')) throw error
    }
  }
  return createConversation({ ctx, input: {} })
}

/** The conversation as `init` shows it: the caller, its latest messages and its participants. */
export async function readWebchatSession(ctx: ChatContext, conversation: ConversationRow): Promise<WebchatSession> {
  const window = { limit: initPageSize, inverted: false }
  const [user, messages, participants] = await Promise.all([
    getCaller({ ctx }),
    listMessages({ ctx, conversationId: conversation.id, window }),
    listParticipants({ ctx, conversationId: conversation.id, window }),
  ])
  return { user, conversation, messages, participants }
}
