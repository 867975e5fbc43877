import SchemaBuilder from '@pothos/core'
import RelayPlugin from '@pothos/plugin-relay'
import SubGraphPlugin from '@pothos/plugin-sub-graph'
import { GraphQLScalarType, type GraphQLSchema, isObjectType } from 'graphql'
import { DateTimeResolver, JSONObjectResolver } from 'graphql-scalars'
import { invalidPayload } from '../domain/errors.ts'
import type { GraphQLContext } from './context.ts'
import { maxPageSize } from './paging.ts'

const isNodeType = (schema: GraphQLSchema, typename: string): boolean => {
  const type = schema.getType(typename)
  return isObjectType(type) && type.getInterfaces().some((face) => face.name === 'Node')
}

/** The one timestamp format stored (Date.prototype.toISOString), which DateTime serializes unchanged. */
const storedTimestamp = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/

/**
 * A schema builder with Confab's plugins and scalars. The chat and admin schemas are sub-graphs of
 * one (`builder`); the agent API's schema is built by another (graphql/agent-schema.ts: its fields
 * would collide with the chat's), which reuses the same type builders (the message payloads).
 */
export const newBuilder = () => {
  const built = new SchemaBuilder<{
    Context: GraphQLContext
    SubGraphs: 'chat' | 'admin'
    DefaultFieldNullability: false
    DefaultEdgesNullability: { list: false; items: false }
    DefaultNodeNullability: false
    Scalars: {
      DateTime: { Input: string; Output: string }
      JSONObject: { Input: Record<string, unknown>; Output: Record<string, unknown> }
    }
  }>({
    plugins: [SubGraphPlugin, RelayPlugin],
    defaultFieldNullability: false,
    subGraphs: { defaultForTypes: ['chat', 'admin'], fieldsInheritFromTypes: true },
    relay: {
      clientMutationId: 'omit',
      cursorType: 'String',
      edgesFieldOptions: { nullable: { list: false, items: false } },
      nodeFieldOptions: { nullable: false },
      // A global id naming a type this schema does not serve (the other API's, or none) is not found.
      nodeQueryOptions: {
        resolve: (_root, { id }, _ctx, info, resolveNode) => (isNodeType(info.schema, id.typename) ? resolveNode(id) : null),
      },
      nodesQueryOptions: {
        resolve: async (_root, args, _ctx, info, resolveNodes) => {
          // As many as a page holds: what the cost of an operation counts them as (cost.ts).
          if (args.ids.length > maxPageSize) throw invalidPayload(`nodes takes at most ${maxPageSize} ids, got ${args.ids.length}`)
          const served = args.ids.map((id) => isNodeType(info.schema, id.typename))
          // Pothos' resolveNodes reads args.ids rather than its argument: narrow them in place.
          args.ids = args.ids.filter((_id, i) => served[i])
          const found = [...(await resolveNodes(args.ids))]
          return served.map((isServed) => (isServed ? found.shift() : null))
        },
      },
    },
  })
  // Every stored timestamp passes through as it is; graphql-scalars parses and checks anything else.
  built.addScalarType(
    'DateTime',
    new GraphQLScalarType({
      ...DateTimeResolver.toConfig(),
      serialize: (value) => (typeof value === 'string' && storedTimestamp.test(value) ? value : DateTimeResolver.serialize(value)),
    }),
  )
  built.addScalarType('JSONObject', JSONObjectResolver)
  return built
}

/** The builder of the chat and admin schemas (graphql/schema.ts). */
export const builder = newBuilder()
export type Builder = typeof builder
/** The builders' schema types, for types declared once and built by either builder, or built from a table. */
export type Types = Builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never

builder.queryType()
builder.mutationType({ subGraphs: ['chat', 'admin'] })
