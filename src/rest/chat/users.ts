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
import { Empty, User } from './resources.ts'
import { z } from 'zod'

/** The web chat's `userData` (an object, or a signed token as a string) is the Chat API's `profile`. */
function userDataAsProfile({ userData, ...body }: Record<string, unknown>): Record<string, unknown> {
  if (userData === undefined) return body
  return { ...body, profile: userData === null || typeof userData === 'string' ? userData : JSON.stringify(userData) }
}

export const userRoutes = [
  route({
    operation: 'createUser',
    summary: 'Creates a user and returns its user key.',
    returns: z.object({ user: User, key: z.string() }),
    method: 'POST',
    path: '/users',
    document: CreateUserDocument,
    response: (d) => ({ user: compact(d.createUser.user), key: d.createUser.key }),
  }),
  route({
    operation: 'getUser',
    summary: 'The user the key names.',
    returns: z.object({ user: User }),
    method: 'GET',
    path: '/users/me',
    document: GetUserDocument,
    response: (d) => ({ user: compact(d.me) }),
  }),
  route({
    operation: 'getOrCreateUser',
    summary: 'The user the key names, created with this profile if it does not exist.',
    returns: z.object({ user: User }),
    method: 'POST',
    path: '/users/get-or-create',
    document: GetOrCreateUserDocument,
    response: (d) => ({ user: compact(d.getOrCreateUser.user) }),
  }),
  route({
    operation: 'updateUser',
    summary: 'Updates the user the key names.',
    returns: z.object({ user: User }),
    method: 'PUT',
    path: '/users/me',
    document: UpdateUserDocument,
    accepts: {
      userData: z
        .union([z.record(z.string(), z.unknown()), z.string()])
        .nullish()
        .describe("The web chat's name for `profile`: an object (stored as its JSON) or a signed token."),
    },
    mapBody: userDataAsProfile,
    response: (d) => ({ user: compact(d.updateUser.user) }),
  }),
  route({
    operation: 'deleteUser',
    summary: 'Deletes the user the key names.',
    returns: Empty,
    method: 'DELETE',
    path: '/users/me',
    document: DeleteUserDocument,
    response: () => ({}),
  }),
  route({
    operation: 'generateUserKey',
    summary: 'A new user key for the user the key names.',
    returns: z.object({ key: z.string() }),
    method: 'POST',
    path: '/users/key',
    document: GenerateUserKeyDocument,
    response: (d) => ({ key: d.generateUserKey.key }),
  }),
]
