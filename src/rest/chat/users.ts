import { GetOrCreateUserDocument } from '../../__generated__/chat-operations.ts'
import { compact } from '../bodies.ts'
import { route } from '../route.ts'

export const userRoutes = [
  route({
    operation: 'getOrCreateUser',
    method: 'POST',
    path: '/users/get-or-create',
    document: GetOrCreateUserDocument,
    response: (d) => ({ user: compact(d.getOrCreateUser.user) }),
  }),
]
