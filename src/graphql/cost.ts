import {
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  getNamedType,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLResolveInfo,
  type GraphQLSchema,
  GraphQLError,
  isAbstractType,
  isCompositeType,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  isUnionType,
  Kind,
  type OperationDefinitionNode,
  type SelectionNode,
  type ValidationContext,
} from 'graphql'
import type { Plugin } from 'graphql-yoga'
import { defaultPageSize, maxPageSize } from './paging.ts'

/*
 * What an operation costs, worked out from its document and the schema before it runs, and priced by
 * what it may return: every field costs 1, a field that may carry a user's bytes (a message's payload
 * or metadata, a user's name, profile or picture URL…) 1 more per 64 KiB it may carry, and a page of a
 * connection multiplies what it selects by its size. Introspection is priced by the answer it would
 * really make (its fields counted on the schema itself). The same walk estimates the most bytes the
 * answer may hold, which tells the answer's byte cap (answer-cap.ts) whether to count as it goes.
 */

/** The most a field a user writes may carry: the chat body limit (1 MB, http/body.ts) bounds every write. */
export const writtenBytes = 1024 * 1024
/** A field that carries bytes costs one more per this many it may carry. */
const bytesPerUnit = 64 * 1024
/** What the estimate of an answer's bytes counts for any other field: a key and an id, a time, a number. */
const ordinaryBytes = 256

/**
 * The fields that carry what users (or bots) write, besides the text fields of a message's payload
 * kinds (found from the MessagePayload union): each may hold a whole body's worth.
 */
const writtenFields = [
  'Message.rawPayload',
  'Message.metadata',
  'Event.payload',
  'User.name',
  'User.profile',
  'User.pictureUrl',
  'MessageFeedback.comment',
  'MessageStatusChangedSignal.failureReason',
  // A bot's message stream: up to MESSAGE_STREAM_DELTA_MAX_BYTES a delta.
  'MessageStreamDeltaSignal.delta',
]

type AnyField = GraphQLField<unknown, unknown>

const carried = new WeakMap<GraphQLSchema, Map<AnyField, number>>()

/** The fields of a schema that carry written bytes, with the most each may carry. */
export function carryingFields(schema: GraphQLSchema): Map<AnyField, number> {
  let fields = carried.get(schema)
  if (fields) return fields
  fields = new Map()
  for (const coordinate of writtenFields) {
    const [typeName = '', fieldName = ''] = coordinate.split('.')
    const type = schema.getType(typeName)
    const field = isObjectType(type) ? type.getFields()[fieldName] : undefined
    if (field) fields.set(field, writtenBytes)
  }
  // Every text of a payload kind (its `type` names the kind, one of a few words).
  const seen = new Set<GraphQLNamedType>()
  const visit = (type: GraphQLNamedType | undefined | null) => {
    if (!type || seen.has(type)) return
    seen.add(type)
    if (isUnionType(type)) for (const member of type.getTypes()) visit(member)
    if (!isObjectType(type)) return
    for (const field of Object.values(type.getFields())) {
      const named = getNamedType(field.type)
      if (named.name === 'String' && field.name !== 'type') fields.set(field, writtenBytes)
      else visit(named)
    }
  }
  visit(schema.getType('MessagePayload'))
  carried.set(schema, fields)
  return fields
}

/** An operation's price: its cost, an estimate of the most bytes it may answer, and its introspection's size and depth. */
export interface Price {
  cost: number
  bytes: number
  introspectionFields: number
  introspectionDepth: number
}

export interface PriceLimits {
  cost: number
  /** Fields an operation's introspection may answer (`__schema`, `__type`), counted on the schema. */
  introspectionFields: number
  /** Depth of an introspection selection (the standard introspection query's is 15). */
  introspectionDepth: number
}

/** Thrown (and caught) once an introspection's count is past its limit: counting further would be work for nothing. */
class PastLimit extends Error {}

interface Walk {
  schema: GraphQLSchema
  fragments: Map<string, FragmentDefinitionNode>
  operation: OperationDefinitionNode
  carrying: Map<AnyField, number>
  limits: PriceLimits
  introspectionFields: number
  introspectionDepth: number
  /** The fragments being walked (a cycle is another rule's to refuse; here it ends the walk). */
  within: Set<string>
}

interface Sum {
  cost: number
  bytes: number
}

const add = (to: Sum, { cost, bytes }: Sum, times = 1) => {
  to.cost += cost * times
  to.bytes += bytes * times
}

/** A page size as given: a literal, a variable's default, else the most a page holds (a variable may ask for it). */
function pageSizeOf(node: FieldNode, walk: Walk): number {
  let size = 0
  for (const argument of node.arguments ?? []) {
    if (argument.name.value !== 'first' && argument.name.value !== 'last') continue
    const { value } = argument
    if (value.kind === Kind.INT) size = Math.max(size, Math.min(Number(value.value), maxPageSize))
    else if (value.kind === Kind.VARIABLE) {
      const fallback = walk.operation.variableDefinitions?.find((v) => v.variable.name.value === value.name.value)?.defaultValue
      size = Math.max(size, fallback?.kind === Kind.INT ? Math.min(Number(fallback.value), maxPageSize) : maxPageSize)
    }
  }
  return size || defaultPageSize
}

/** How many times a field's selection is answered: a connection's page, a list's items (`nodes(ids:)`), else once. */
function timesOf(node: FieldNode, field: AnyField, parent: GraphQLNamedType, walk: Walk, inPayload: boolean): number {
  if (field.args.some((arg) => arg.name === 'first' || arg.name === 'last')) return pageSizeOf(node, walk)
  const type = isNonNullType(field.type) ? field.type.ofType : field.type
  // A connection's edges are its page, already counted; lists inside a payload are parts of its bytes.
  if (!isListType(type) || parent.name.endsWith('Connection') || inPayload) return 1
  const ids = node.arguments?.find((argument) => argument.name.value === 'ids')?.value
  return ids?.kind === Kind.LIST ? ids.values.length : maxPageSize
}

function selectionsPrice(selections: readonly SelectionNode[], parent: GraphQLNamedType, walk: Walk, depth: number, inPayload: boolean): Sum {
  const common: Sum = { cost: 0, bytes: 0 }
  // What fragments on one member of a union or interface add: only one member is answered per object.
  const byType = new Map<string, Sum>()
  for (const selection of selections) {
    if (selection.kind === Kind.FIELD) {
      add(common, fieldPrice(selection, parent, walk, depth, inPayload))
      continue
    }
    let typeName: string | undefined
    let inner: readonly SelectionNode[]
    if (selection.kind === Kind.INLINE_FRAGMENT) {
      typeName = selection.typeCondition?.name.value
      inner = selection.selectionSet.selections
    } else {
      const name = selection.name.value
      const fragment = walk.fragments.get(name)
      if (!fragment || walk.within.has(name)) continue
      typeName = fragment.typeCondition.name.value
      inner = fragment.selectionSet.selections
      walk.within.add(name)
    }
    const type = typeName === undefined ? parent : walk.schema.getType(typeName)
    if (!type || !isCompositeType(type)) continue
    const price = selectionsPrice(inner, type, walk, depth, inPayload)
    if (selection.kind === Kind.FRAGMENT_SPREAD) walk.within.delete(selection.name.value)
    if (type === parent || isAbstractType(type)) add(common, price)
    else {
      const member = byType.get(type.name) ?? { cost: 0, bytes: 0 }
      byType.set(type.name, member)
      add(member, price)
    }
  }
  const members = [...byType.values()]
  return {
    cost: common.cost + Math.max(0, ...members.map((m) => m.cost)),
    bytes: common.bytes + Math.max(0, ...members.map((m) => m.bytes)),
  }
}

function fieldPrice(node: FieldNode, parent: GraphQLNamedType, walk: Walk, depth: number, inPayload: boolean): Sum {
  const name = node.name.value
  if (name === '__typename') return { cost: 1, bytes: 32 }
  if (name === '__schema' || name === '__type') return introspectionPrice(node, walk, depth)
  const field = isObjectType(parent) || isInterfaceType(parent) ? parent.getFields()[name] : undefined
  if (!field) return { cost: 0, bytes: 0 }
  const carries = walk.carrying.get(field)
  const own: Sum = carries ? { cost: 1 + Math.ceil(carries / bytesPerUnit), bytes: carries } : { cost: 1, bytes: ordinaryBytes }
  const type = getNamedType(field.type)
  if (!node.selectionSet || !isCompositeType(type)) return own
  // A message's payload: what it selects is parts of one stored payload, each text priced by what it may carry.
  const payload = inPayload || type.name === 'MessagePayload'
  const times = timesOf(node, field, parent, walk, payload)
  add(own, selectionsPrice(node.selectionSet.selections, type, walk, depth + 1, payload), times)
  return own
}

/** The depth of a selection, fragments included (a cycle ends it). */
function depthOf(selections: readonly SelectionNode[], walk: Walk, within = new Set<string>()): number {
  let deepest = 0
  for (const selection of selections) {
    if (selection.kind === Kind.FIELD) {
      deepest = Math.max(deepest, 1 + (selection.selectionSet ? depthOf(selection.selectionSet.selections, walk, within) : 0))
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      deepest = Math.max(deepest, depthOf(selection.selectionSet.selections, walk, within))
    } else {
      const fragment = walk.fragments.get(selection.name.value)
      if (!fragment || within.has(fragment.name.value)) continue
      within.add(fragment.name.value)
      deepest = Math.max(deepest, depthOf(fragment.selectionSet.selections, walk, within))
      within.delete(fragment.name.value)
    }
  }
  return deepest
}

/**
 * An introspection field priced by the answer it would make: its selection walked over the schema
 * with the introspection types' own resolvers (pure reads of the schema), counting every field
 * answered, until the count is past the limit. Deprecated members are counted as if asked for.
 */
function introspectionPrice(node: FieldNode, walk: Walk, depth: number): Sum {
  const { schema } = walk
  walk.introspectionDepth = Math.max(walk.introspectionDepth, depth - 1 + depthOf([node], walk))
  const before = walk.introspectionFields
  const info = { schema } as GraphQLResolveInfo
  const count = (selections: readonly SelectionNode[], type: GraphQLObjectType, value: unknown) => {
    for (const selection of selections) {
      if (selection.kind !== Kind.FIELD) {
        const fragment = selection.kind === Kind.INLINE_FRAGMENT ? selection : walk.fragments.get(selection.name.value)
        if (!fragment || (fragment.typeCondition && fragment.typeCondition.name.value !== type.name)) continue
        if (selection.kind === Kind.FRAGMENT_SPREAD) {
          if (walk.within.has(selection.name.value)) continue
          walk.within.add(selection.name.value)
        }
        count(fragment.selectionSet.selections, type, value)
        if (selection.kind === Kind.FRAGMENT_SPREAD) walk.within.delete(selection.name.value)
        continue
      }
      walk.introspectionFields += 1
      if (walk.introspectionFields > walk.limits.introspectionFields) throw new PastLimit()
      const field = type.getFields()[selection.name.value]
      if (!field || !selection.selectionSet) continue
      const args = Object.fromEntries(field.args.map((arg) => [arg.name, arg.name === 'includeDeprecated' ? true : undefined]))
      const resolved = field.resolve ? field.resolve(value, args, undefined, info) : (value as Record<string, unknown>)[field.name]
      const itemType = getNamedType(field.type)
      if (!isObjectType(itemType)) continue
      for (const item of Array.isArray(resolved) ? resolved : [resolved]) {
        if (item != null) count(selection.selectionSet.selections, itemType, item)
      }
    }
  }
  const schemaType = schema.getType('__Schema') as GraphQLObjectType
  const typeType = schema.getType('__Type') as GraphQLObjectType
  const selections = node.selectionSet?.selections ?? []
  walk.introspectionFields += 1
  if (node.name.value === '__schema') count(selections, schemaType, schema)
  else {
    const argument = node.arguments?.find((a) => a.name.value === 'name')?.value
    // A name given as a variable may be any type's: the largest answer counts.
    const candidates = argument?.kind === Kind.STRING ? [schema.getType(argument.value)] : Object.values(schema.getTypeMap())
    const start = walk.introspectionFields
    let largest = start
    for (const candidate of candidates) {
      walk.introspectionFields = start
      if (candidate) count(selections, typeType, candidate)
      largest = Math.max(largest, walk.introspectionFields)
    }
    walk.introspectionFields = largest
  }
  const fields = walk.introspectionFields - before
  // Its answer is made of the schema's names and descriptions: about 20 bytes a field.
  return { cost: fields, bytes: fields * 32 }
}

const priced = new WeakMap<GraphQLSchema, WeakMap<DocumentNode, Price>>()

/**
 * The price of a document against a schema, its costliest operation's: worked out once per document
 * (yoga keeps a document parsed once per text, and a REST route's is parsed with its route table).
 */
export function priceOf(schema: GraphQLSchema, document: DocumentNode, limits: PriceLimits): Price {
  let bySchema = priced.get(schema)
  if (!bySchema) priced.set(schema, (bySchema = new WeakMap()))
  const known = bySchema.get(document)
  if (known) return known
  const fragments = new Map<string, FragmentDefinitionNode>()
  for (const definition of document.definitions) if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition)
  const price: Price = { cost: 0, bytes: 0, introspectionFields: 0, introspectionDepth: 0 }
  for (const operation of document.definitions) {
    if (operation.kind !== Kind.OPERATION_DEFINITION) continue
    const root = schema.getRootType(operation.operation)
    if (!root) continue
    const walk: Walk = {
      schema,
      fragments,
      operation,
      carrying: carryingFields(schema),
      limits,
      introspectionFields: 0,
      introspectionDepth: 0,
      within: new Set(),
    }
    let sum: Sum
    try {
      sum = selectionsPrice(operation.selectionSet.selections, root, walk, 1, false)
    } catch (error) {
      if (!(error instanceof PastLimit)) throw error
      sum = { cost: walk.introspectionFields, bytes: 0 }
    }
    price.cost = Math.max(price.cost, Math.ceil(sum.cost))
    price.bytes = Math.max(price.bytes, sum.bytes)
    price.introspectionFields = Math.max(price.introspectionFields, walk.introspectionFields)
    price.introspectionDepth = Math.max(price.introspectionDepth, walk.introspectionDepth)
  }
  bySchema.set(document, price)
  return price
}

/** Why an operation is refused, or undefined when its price is within the limits. */
export function overLimit(price: Price, limits: PriceLimits): string | undefined {
  if (price.introspectionDepth > limits.introspectionDepth) {
    return `Introspection depth limit of ${limits.introspectionDepth} exceeded, found ${price.introspectionDepth}.`
  }
  if (price.introspectionFields > limits.introspectionFields) {
    return `Introspection limit of ${limits.introspectionFields} fields exceeded: the schema would answer more.`
  }
  if (price.cost > limits.cost) {
    return `Query cost limit of ${limits.cost} exceeded, found ${price.cost} (a page multiplies what it selects; a page size given as a variable without a default counts as ${maxPageSize}).`
  }
  return undefined
}

/**
 * Refuses, before it runs, an operation whose price is over the limits (priced once per document).
 * Thrown, as graphql-armor's limits are, so that every refusal of a limit reads alike.
 */
export function useCostLimit(limits: PriceLimits): Plugin {
  const confabCost = (context: ValidationContext) => {
    const refusal = overLimit(priceOf(context.getSchema(), context.getDocument(), limits), limits)
    if (refusal) throw new GraphQLError(refusal)
    return {}
  }
  return {
    onValidate({ addValidationRule }) {
      addValidationRule(confabCost)
    },
  }
}
