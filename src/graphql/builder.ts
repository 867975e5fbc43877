import SchemaBuilder from '@pothos/core'
import RelayPlugin from '@pothos/plugin-relay'
import SubGraphPlugin from '@pothos/plugin-sub-graph'
import { DateTimeResolver, JSONObjectResolver } from 'graphql-scalars'
import type { GraphQLContext } from './context.ts'

export const builder = new SchemaBuilder<{
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
  },
})

builder.addScalarType('DateTime', DateTimeResolver)
builder.addScalarType('JSONObject', JSONObjectResolver)
builder.queryType()
builder.mutationType({ subGraphs: ['chat', 'admin'] })
