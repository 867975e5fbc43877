import { CreateConversationDocument } from '../../__generated__/chat-operations.ts'
import { route } from '../route.ts'

export const conversationRoutes = [
  route({
    operation: 'createConversation',
    method: 'POST',
    path: '/conversations',
    document: CreateConversationDocument,
    response: (d) => ({ conversation: d.createConversation.conversation }),
  }),
]
