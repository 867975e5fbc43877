import { HelloDocument } from '../../__generated__/chat-operations.ts'
import { route } from '../route.ts'

export const helloRoutes = [
  route({
    operation: 'hello',
    method: 'GET',
    path: '/hello',
    document: HelloDocument,
    response: () => ({ status: 'ok' }),
  }),
]
