import { CreateMessageDocument } from '../../__generated__/chat-operations.ts'
import { compact } from '../bodies.ts'
import { route } from '../route.ts'

export const messageRoutes = [
  route({
    operation: 'createMessage',
    method: 'POST',
    path: '/messages',
    document: CreateMessageDocument,
    response: (d) => ({ message: compact(d.createMessage.message) }),
  }),
]
