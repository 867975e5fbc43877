import { type Agent, createAgent, deleteAgent, listAgents } from '../../domain/agents.ts'
import { builder, type Types } from '../builder.ts'
import { adminScope } from '../context.ts'

/** The Agent type, on the admin schema and (as the agent itself, `me`) on the agent schema. */
export const agentType: PothosSchemaTypes.ObjectTypeOptions<Types, Agent> = {
  description: 'A person who answers users in place of the workspace’s bots (docs/guides/handoff.md), on the agent API with its own key.',
  fields: (t) => ({
    id: t.exposeString('id'),
    name: t.exposeString('name', { description: 'Shown to the users the agent answers.' }),
    role: t.exposeString('role', {
      description: '`agent`: the queue and its own conversations; `supervisor`: every handed-off conversation of the workspace.',
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
}

const AgentType = builder.objectRef<Agent>('Agent').implement({ subGraphs: ['admin'], ...agentType })

builder.queryField('agents', (t) =>
  t.field({
    subGraphs: ['admin'],
    type: [AgentType],
    description: 'The agents of the workspace, oldest first (never their keys).',
    resolve: (_root, _args, ctx) => listAgents({ ctx: adminScope(ctx) }),
  }),
)

builder.relayMutationField(
  'createAgent',
  { subGraphs: ['admin'], inputFields: (t) => ({ name: t.string({ required: true }), role: t.string() }) },
  {
    description: 'A new agent of the workspace and its key, shown this once (Authorization: Bearer <key> on /v1/agent/…).',
    resolve: (_root, { input }, ctx) => createAgent({ ctx: adminScope(ctx), input }),
  },
  {
    subGraphs: ['admin'],
    outputFields: (t) => ({
      agent: t.expose('agent', { type: AgentType }),
      key: t.exposeString('key', { description: 'Shown this once: only its digest is kept.' }),
    }),
  },
)

builder.relayMutationField(
  'deleteAgent',
  { subGraphs: ['admin'], inputFields: (t) => ({ id: t.string({ required: true }) }) },
  {
    description: 'Deletes an agent and its key; the conversations it holds stay as they are (a supervisor may act on them).',
    resolve: async (_root, { input: { id } }, ctx) => {
      await deleteAgent({ ctx: adminScope(ctx), id })
      return { agentId: id }
    },
  },
  { subGraphs: ['admin'], outputFields: (t) => ({ agentId: t.exposeString('agentId') }) },
)
