import { DomainError } from './errors.ts'

/**
 * An agent's user in a chat integration: the participant its messages are posted as, named after
 * the agent. The prefix is reserved: no user key, createUser or bot API tag may name such a user.
 */
export const agentUserPrefix = 'agent:'
export const agentUserId = (agentId: string): string => `${agentUserPrefix}${agentId}`
export const isAgentUserId = (userId: string): boolean => userId.startsWith(agentUserPrefix)

/** A user id a client may choose or a key may name: not an agent's (403 otherwise). */
export function refuseAgentUserId(id: string): string {
  if (isAgentUserId(id)) throw new DomainError('Forbidden', `user ids beginning with "${agentUserPrefix}" are agents' and cannot be chosen`)
  return id
}
