import { CreateEventDocument } from '../../__generated__/chat-operations.ts'
import { route } from '../route.ts'

export const eventRoutes = [
  route({
    operation: 'createEvent',
    method: 'POST',
    path: '/events',
    document: CreateEventDocument,
    response: (d) => ({ event: d.createEvent.event }),
  }),
]
