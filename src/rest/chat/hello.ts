import { HelloDocument } from '../../__generated__/chat-operations.ts'
import { route } from '../route.ts'
import { z } from 'zod'

export const helloRoutes = [
  route({
    operation: 'hello',
    summary: 'Checks the connection (the official client calls it first); 404 for an unknown webhook id.',
    returns: z.object({ status: z.literal('ok') }),
    method: 'GET',
    path: '/hello',
    document: HelloDocument,
    response: () => ({ status: 'ok' }),
  }),
]
