import { CreateEventDocument, GetEventDocument } from '../../__generated__/chat-operations.ts'
import { route } from '../route.ts'
import { Event } from './resources.ts'
import { z } from 'zod'

export const eventRoutes = [
  route({
    operation: 'createEvent',
    summary: 'Creates a custom event in a conversation.',
    returns: z.object({ event: Event }),
    method: 'POST',
    path: '/events',
    document: CreateEventDocument,
    response: (d) => ({ event: d.createEvent.event }),
  }),
  route({
    operation: 'getEvent',
    summary: 'An event of a conversation the caller takes part in.',
    returns: z.object({ event: Event }),
    method: 'GET',
    path: '/events/{id}',
    document: GetEventDocument,
    response: (d) => ({ event: d.event }),
  }),
]
