import SchemaBuilder from '@pothos/core'
import { lexicographicSortSchema } from 'graphql'
import { JSONObjectResolver } from 'graphql-scalars'
import { Repeater } from 'graphql-yoga'
import { agentInputs } from '../contracts/agent-inputs.ts'
import { type AgentFeed, agentVerbs } from '../domain/agent-api.ts'
import { type AgentFeedFollower, followMyConversations, followQueue } from '../domain/agent-feed.ts'
import { parseInput } from '../domain/bot-api/inputs.ts'
import type { GraphQLContext } from './context.ts'
import { agentScope } from './context.ts'

/*
 * The agent API scope (/v1/agent/…; docs/guides/handoff.md): what a person answering users in
 * place of the bots does, with an agent key. Each field takes the operation's input (path, query
 * and body) and answers its JSON body, checked in the domain; `listenQueue` is the live feed of the
 * workspace's queue, `listenMyConversations` that of the conversations the agent holds.
 */
const builder = new SchemaBuilder<{
  Context: GraphQLContext
  DefaultFieldNullability: false
  Scalars: { JSONObject: { Input: Record<string, unknown>; Output: Record<string, unknown> } }
}>({ defaultFieldNullability: false })

builder.addScalarType('JSONObject', JSONObjectResolver)

const reads = new Set(['listQueue', 'listMyConversations', 'getConversation', 'listHistory', 'listNotes', 'getMe', 'listAgents'])

builder.queryType()
builder.mutationType()
builder.subscriptionType()

for (const [name, verb] of Object.entries(agentVerbs)) {
  const define = reads.has(name) ? builder.queryField.bind(builder) : builder.mutationField.bind(builder)
  define(name, (t) =>
    t.field({
      type: 'JSONObject',
      args: { input: t.arg({ type: 'JSONObject', required: true }) },
      resolve: (_root, { input }, ctx) => verb(agentScope(ctx), input, { messageMaxBytes: ctx.agentLimits?.messageMaxBytes ?? 0 }),
    }),
  )
}

const feeds: Record<AgentFeed, AgentFeedFollower> = { listenQueue: followQueue, listenMyConversations: followMyConversations }

for (const [name, follow] of Object.entries(feeds) as [AgentFeed, AgentFeedFollower][]) {
  builder.subscriptionField(name, (t) =>
    t.field({
      type: 'JSONObject',
      args: { input: t.arg({ type: 'JSONObject', required: true }) },
      subscribe: (_root, { input }, ctx) => {
        const agent = agentScope(ctx)
        parseInput(agentInputs[name], input)
        const all = ctx.signals.all()
        return new Repeater<Record<string, unknown>>(async (push, stop) => {
          void stop.then(() => all.return?.())
          try {
            await follow(agent, all, push)
          } finally {
            stop()
          }
        })
      },
      resolve: (update) => update,
    }),
  )
}

export const agentSchema = lexicographicSortSchema(builder.toSchema())
