import { CreateEventDocument, GetEventDocument } from '../../__generated__/chat-operations.ts'
import { route } from '../route.ts'

export const eventRoutes = [
  route({
    operation: 'createEvent',
    method: 'POST',
    path: '/events',
    document: CreateEventDocument,
    response: (d) => ({ event: d.createEvent.event }),
  }),
  route({
    operation: 'getEvent',
    method: 'GET',
    path: '/events/{id}',
    document: GetEventDocument,
    response: (d) => ({ event: d.event }),
  }),
]
