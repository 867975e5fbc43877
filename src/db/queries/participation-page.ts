import type { ConversationQueries, MessageQueries } from '../store.ts'

/**
 * `conversations.participationWithPage` as two statements, the participation then the page, in
 * the caller's read (SQLite, where a statement is a call; PostgreSQL reads both in one:
 * src/db/postgres/participation-page.ts).
 */
export const participationThenPage = (
  conversations: Omit<ConversationQueries, 'participationWithPage'>,
  messages: MessageQueries,
): Pick<ConversationQueries, 'participationWithPage'> => ({
  participationWithPage: async (integrationId, conversationId, userId, window) => {
    const participation = await conversations.participation(integrationId, conversationId, userId)
    if (!participation.participant) return { participation, page: [] }
    const pages = await messages.pages(integrationId, [conversationId], window)
    return { participation, page: pages.get(conversationId) ?? [] }
  },
})
