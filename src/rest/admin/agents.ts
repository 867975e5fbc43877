import { z } from 'zod'
import { CreateAgentDocument, DeleteAgentDocument, ListAgentsDocument } from '../../__generated__/admin-operations.ts'
import { Agent } from '../agent/resources.ts'
import { Empty } from '../chat/resources.ts'
import { route } from '../route.ts'

/** The workspace's agents (docs/guides/handoff.md), relative to /v1/admin. */
export const agentAdminRoutes = [
  route({
    operation: 'listAgents',
    summary: 'The agents of the workspace, oldest first (never their keys).',
    returns: z.object({ agents: z.array(Agent) }),
    method: 'GET',
    path: '/agents',
    document: ListAgentsDocument,
    response: (d) => ({ agents: d.agents }),
  }),
  route({
    operation: 'createAgent',
    summary: 'Creates an agent of the workspace; its key is shown this once.',
    returns: z.object({ agent: Agent, key: z.string() }),
    method: 'POST',
    path: '/agents',
    document: CreateAgentDocument,
    response: (d) => d.createAgent,
  }),
  route({
    operation: 'deleteAgent',
    summary: 'Deletes an agent and its key.',
    returns: Empty,
    method: 'DELETE',
    path: '/agents/{id}',
    document: DeleteAgentDocument,
    response: () => ({}),
  }),
]
