import {
  CreateUserDocument,
  DeleteUserDocument,
  GenerateUserKeyDocument,
  GetOrCreateUserDocument,
  GetUserDocument,
  UpdateUserDocument,
} from '../../__generated__/chat-operations.ts'
import { compact } from '../bodies.ts'
import { route } from '../route.ts'

/** The web chat's `userData` (an object, or a signed token as a string) is the Chat API's `profile`. */
function userDataAsProfile({ userData, ...body }: Record<string, unknown>): Record<string, unknown> {
  if (userData === undefined) return body
  return { ...body, profile: userData === null || typeof userData === 'string' ? userData : JSON.stringify(userData) }
}

export const userRoutes = [
  route({
    operation: 'createUser',
    method: 'POST',
    path: '/users',
    document: CreateUserDocument,
    response: (d) => ({ user: compact(d.createUser.user), key: d.createUser.key }),
  }),
  route({
    operation: 'getUser',
    method: 'GET',
    path: '/users/me',
    document: GetUserDocument,
    response: (d) => ({ user: compact(d.me) }),
  }),
  route({
    operation: 'getOrCreateUser',
    method: 'POST',
    path: '/users/get-or-create',
    document: GetOrCreateUserDocument,
    response: (d) => ({ user: compact(d.getOrCreateUser.user) }),
  }),
  route({
    operation: 'updateUser',
    method: 'PUT',
    path: '/users/me',
    document: UpdateUserDocument,
    mapBody: userDataAsProfile,
    response: (d) => ({ user: compact(d.updateUser.user) }),
  }),
  route({
    operation: 'deleteUser',
    method: 'DELETE',
    path: '/users/me',
    document: DeleteUserDocument,
    response: () => ({}),
  }),
  route({
    operation: 'generateUserKey',
    method: 'POST',
    path: '/users/key',
    document: GenerateUserKeyDocument,
    response: (d) => ({ key: d.generateUserKey.key }),
  }),
]
