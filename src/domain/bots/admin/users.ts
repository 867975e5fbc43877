import type { ChatIntegrationRow, ConversationNoteRow, ConversationRow, HandoffRequestRow, UserRow } from '../../../db/schema.ts'
import { isAgentUserId } from '../../agent-users.ts'
import type { Queries } from '../../../db/store.ts'
import { now } from '../../clock.ts'
import type { AdminContext } from '../../context.ts'
import { eraseUser } from '../../erasure.ts'
import { notFound } from '../../errors.ts'
import { type Cursored, keysetWindow, type PageWindow, withCursors } from '../../paging.ts'

/* The administration of a bot's users: who they are, what Confab holds about one, and deleting one. */

/** The chat integration of one of the workspace's bots (404 for a bot it does not have). */
async function integrationOfBot(ctx: AdminContext, q: Queries, botId: string): Promise<ChatIntegrationRow> {
  const integration = (await q.bots.find(ctx.workspaceId, botId)) && (await q.bots.integrationOf(botId))
  if (!integration) throw notFound('Bot', botId)
  return integration
}

/** The bot's users (its own user aside), newest first. */
export function listBotUsers({ ctx, botId, window }: { ctx: AdminContext; botId: string; window: PageWindow }): Promise<Cursored<UserRow>[]> {
  // The cursor is tagged with the bot: a token is only good for the list that issued it.
  const tag = `botUsers:${botId}`
  return ctx.store.read(async (q) => {
    const integration = await integrationOfBot(ctx, q, botId)
    const rows = await q.userRecords.usersPage(integration.id, keysetWindow(tag, window))
    return withCursors(tag, rows, (user) => [user.createdAt, user.id])
  })
}

/** Every conversation of the bot's chat integration, newest first. */
export function listBotConversations({ ctx, botId, window }: { ctx: AdminContext; botId: string; window: PageWindow }): Promise<Cursored<ConversationRow>[]> {
  const tag = `botConversations:${botId}`
  return ctx.store.read(async (q) => {
    const integration = await integrationOfBot(ctx, q, botId)
    const rows = await q.userRecords.conversationsPage(integration.id, keysetWindow(tag, window))
    return withCursors(tag, rows, (conversation) => [conversation.createdAt, conversation.id])
  })
}

/**
 * Everything Confab holds about one user of the bot, as JSON (a data subject's access request):
 * its profile, each conversation it participates in with who is in it and all that was said
 * there (messages and custom events, the bot's replies included), its files (what they are, not
 * their bytes, which their URLs serve), and what the bot stored about it (its user state).
 */
export function exportBotUser({ ctx, botId, userId }: { ctx: AdminContext; botId: string; userId: string }) {
  return ctx.store.read(async (q) => {
    const integration = await integrationOfBot(ctx, q, botId)
    const user = await q.users.find(integration.id, userId)
    if (!user || user.isBot) throw notFound('User', userId)
    const conversations = await q.userRecords.conversationsOf(integration.id, userId)
    const files = await q.userRecords.filesOf(integration.id, userId)
    const state = await q.botStates.findScope(botId, 'user', userId)
    // The agents answered in the bot's place: their messages are the service's side too.
    const ownOrBot = (record: { userId: string }) => record.userId === userId || record.userId === botId || isAgentUserId(record.userId)
    return {
      exportedAt: now(),
      botId,
      user: { id: user.id, name: user.name, pictureUrl: user.pictureUrl, profile: user.profile, createdAt: user.createdAt, updatedAt: user.updatedAt },
      // The user's own records, and the bot's side of its conversations (the bot's user id is its bot
      // id): what another user said there is that user's, named here by its id in participantIds only.
      conversations: conversations.map(({ conversation, participantIds, messages, events, notes, handoffRequest }) => ({
        id: conversation.id,
        ownerId: conversation.ownerId,
        createdAt: conversation.createdAt,
        updatedAt: conversation.updatedAt,
        handledBy: conversation.handledBy,
        participantIds,
        messages: messages.filter(ownOrBot).map(({ integrationId: _, conversationId: __, ...message }) => message),
        events: events.filter(ownOrBot).map(({ integrationId: _, conversationId: __, ...event }) => event),
        // What agents wrote and were handed about the conversation is about its owner (in another's, about that one).
        ...(conversation.ownerId === userId ? handoffRecords(conversation, notes, handoffRequest, ownOrBotEntry(userId)) : {}),
      })),
      files: files.map(({ integrationId: _, userId: __, ...file }) => file),
      botState: state?.value ?? {},
    }
  })
}

/** Of a hitl:startHitl messageHistory, the user's entries and the bot's (`source` as the interface names it). */
const ownOrBotEntry = (userId: string) => (entry: Record<string, unknown>) => {
  const source = entry.source as { type?: unknown; userId?: unknown } | undefined
  return source?.type === 'bot' || (source?.type === 'user' && source.userId === userId)
}

/** A conversation's notes and handoff request, as its owner's export shows them. */
function handoffRecords(
  conversation: ConversationRow,
  notes: ConversationNoteRow[],
  request: HandoffRequestRow | undefined,
  shown: (entry: Record<string, unknown>) => boolean,
) {
  return {
    notes: notes.map(({ integrationId: _, conversationId: __, ...note }) => note),
    ...(request
      ? {
          handoff: {
            title: conversation.handoffTitle,
            description: request.description,
            requestedAt: request.requestedAt,
            messageHistory: (request.messageHistory ?? []).filter(shown),
          },
        }
      : {}),
  }
}

/** Deletes one user of the bot with everything that is theirs (see eraseUser); 404 when there is none. */
export function deleteBotUser({ ctx, botId, userId }: { ctx: AdminContext; botId: string; userId: string }): Promise<void> {
  return ctx.store.write(async (q, after) => {
    const integration = await integrationOfBot(ctx, q, botId)
    const user = await q.users.find(integration.id, userId)
    // The bot's own user goes only with its bot.
    if (!user || user.isBot || !(await eraseUser(ctx, q, after, integration, userId))) throw notFound('User', userId)
  })
}
