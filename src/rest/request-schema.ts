import {
  type DocumentNode,
  type GraphQLInputObjectType,
  type GraphQLInputType,
  type GraphQLSchema,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  Kind,
  type OperationDefinitionNode,
  TypeInfo,
  typeFromAST,
  visit,
  visitWithTypeInfo,
} from 'graphql'
import { z } from 'zod'
import { boundsOf } from '../graphql/input-bounds.ts'
import type { AnyRoute } from './route.ts'

/*
 * What a REST request of a route may carry, derived once from the route and the GraphQL operation it
 * runs: the query parameters the route maps onto variables, and a JSON body of
 * the operation's other variables. The same zod schemas refuse a bad request before GraphQL sees it
 * (in the caller's words, rest/refusal-words.ts) and are published in the OpenAPI document.
 *
 * A @oneOf input is sent the Chat API's way, `{type: <field>, …that field's input}` (a message payload,
 * a bloc item), as is its member input wherever else it is used (a carousel's cards), and an input
 * with an `extra` JSON object keeps the properties it does not name (see
 * graphql/types/payload-input.ts, which converts between the two forms).
 */

export interface RequestSchema {
  /** The query parameters the route declares, each with the schema of its value. */
  parameters: Record<string, z.ZodType>
  /** The query parameters as text arrives: numbers read as numbers before they are checked. */
  query: z.ZodObject
  /** The body's schema, or undefined where the body is ignored (GET, DELETE). */
  body: z.ZodObject | undefined
}

/** Query parameters arrive as text: an integer or a number is read as one before its type is checked. */
const fromText = (schema: z.ZodType, name: string) =>
  name === 'Int' || name === 'Float'
    ? z.preprocess((value) => (typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value), schema)
    : schema

const scalars: Record<string, () => z.ZodType> = {
  String: () => z.string(),
  ID: () => z.string(),
  Boolean: () => z.boolean(),
  Int: () => z.int32(),
  Float: () => z.number(),
  JSONObject: () => z.record(z.string(), z.unknown()),
  DateTime: () => z.iso.datetime(),
}

/** The kind each input of a @oneOf stands for (the field naming it): CardPayloadInput is `card`, wherever it is used. */
type Kinds = Map<GraphQLInputObjectType, string>

const kindsBySchema = new WeakMap<GraphQLSchema, Kinds>()
function kindsOf(schema: GraphQLSchema): Kinds {
  let kinds = kindsBySchema.get(schema)
  if (!kinds) {
    kinds = new Map()
    for (const type of Object.values(schema.getTypeMap())) {
      if (!isInputObjectType(type) || !type.isOneOf) continue
      for (const field of Object.values(type.getFields())) {
        const input = getNamedType(field.type)
        if (isInputObjectType(input)) kinds.set(input, field.name)
      }
    }
    kindsBySchema.set(schema, kinds)
  }
  return kinds
}

/** A @oneOf input, named as the document calls it (MessagePayloadInput is a MessagePayload). */
const oneOfSchema = (type: GraphQLInputObjectType, kinds: Kinds): z.ZodType => {
  const members = Object.values(type.getFields()).map((field) => requiredSchemaOf(field.type as GraphQLInputType, kinds))
  return z.discriminatedUnion('type', members as [z.ZodObject, ...z.ZodObject[]]).meta({ id: type.name.replace(/Input$/, '') })
}

function objectSchema(type: GraphQLInputObjectType, kinds: Kinds): z.ZodObject {
  const fields = Object.values(type.getFields())
  const kind = kinds.get(type)
  const shape: Record<string, z.core.$ZodType> = kind === undefined ? {} : { type: z.literal(kind) }
  for (const field of fields) if (field.name !== 'extra') shape[field.name] = schemaOf(field.type, kinds, boundsOf(field))
  const loose = fields.some((field) => field.name === 'extra')
  return loose ? z.looseObject(shape) : z.strictObject(shape)
}

const cache = new WeakMap<GraphQLInputType, z.ZodType>()

function requiredSchemaOf(type: GraphQLInputType, kinds: Kinds): z.ZodType {
  if (isListType(type)) return z.array(schemaOf(type.ofType, kinds))
  if (isEnumType(type)) return z.enum(type.getValues().map((value) => value.name) as [string, ...string[]])
  if (isInputObjectType(type)) {
    let schema = cache.get(type)
    if (!schema) {
      schema = type.isOneOf ? oneOfSchema(type, kinds) : objectSchema(type, kinds)
      cache.set(type, schema)
    }
    return schema
  }
  if (isNonNullType(type)) return requiredSchemaOf(type.ofType, kinds)
  const scalar = scalars[type.name]
  if (!scalar) throw new Error(`no REST schema for the GraphQL scalar ${type.name}`)
  return scalar()
}

/** A GraphQL input type as JSON (within its bounds, graphql/input-bounds.ts): a nullable one may be left out or null. */
function schemaOf(type: GraphQLInputType, kinds: Kinds, bounds?: z.ZodType): z.ZodType {
  const value = bounds ?? requiredSchemaOf(isNonNullType(type) ? type.ofType : type, kinds)
  return isNonNullType(type) ? value : value.nullish()
}

/** The bounds of each variable the operation passes as a whole to an argument or input field that has some. */
function variableBounds(schema: GraphQLSchema, operation: OperationDefinitionNode): Map<string, z.ZodType> {
  const found = new Map<string, z.ZodType>()
  const typeInfo = new TypeInfo(schema)
  const note = (variable: string, bounds: z.ZodType | undefined) => {
    if (bounds) found.set(variable, bounds)
  }
  visit(
    operation,
    visitWithTypeInfo(typeInfo, {
      Argument(node) {
        const argument = typeInfo.getArgument()
        const field = typeInfo.getFieldDef()
        if (node.value.kind === Kind.VARIABLE && argument) note(node.value.name.value, boundsOf(argument, field ?? undefined))
      },
      ObjectField(node) {
        const parent = getNamedType(typeInfo.getParentInputType())
        const input = isInputObjectType(parent) ? parent.getFields()[node.name.value] : undefined
        if (node.value.kind === Kind.VARIABLE && input) note(node.value.name.value, boundsOf(input))
      },
    }),
  )
  return found
}

/** The `{name}` segments of a route's path. */
export const pathParams = (path: string) => [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1] as string)

/** Methods whose body is read: a DELETE's is ignored (the official client sends `{}`). */
const takesBody = (method: string) => method === 'POST' || method === 'PUT' || method === 'PATCH'

export function requestSchema(schema: GraphQLSchema, route: AnyRoute): RequestSchema {
  const operation = (route.document as DocumentNode).definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)
  const kinds = kindsOf(schema)
  const variables = new Map(
    (operation?.variableDefinitions ?? []).map((definition) => {
      const type = typeFromAST(schema, definition.type) as GraphQLInputType | undefined
      if (!type) throw new Error(`REST route ${route.operation}: unknown type of $${definition.variable.name.value}`)
      return [definition.variable.name.value, type] as const
    }),
  )
  const bounds = operation ? variableBounds(schema, operation) : new Map<string, z.ZodType>()
  const params = pathParams(route.path)
  const queried = Object.entries(route.query ?? {})
  const parameters: Record<string, z.ZodType> = {}
  const query: Record<string, z.ZodType> = {}
  for (const [name, variable] of queried) {
    const type = variables.get(variable)
    if (!type) throw new Error(`REST route ${route.operation}: query parameter ${name} names no variable`)
    // A query parameter is there or not: never null.
    const value = bounds.get(variable) ?? requiredSchemaOf(isNonNullType(type) ? type.ofType : type, kinds)
    parameters[name] = isNonNullType(type) ? value : value.optional()
    query[name] = fromText(parameters[name], getNamedType(type).name)
  }
  const common = { parameters, query: z.object(query) }
  if (!takesBody(route.method)) return { ...common, body: undefined }
  if (route.body) return { ...common, body: route.body }
  const taken = new Set([...params, ...queried.map(([, variable]) => variable)])
  const shape: Record<string, z.core.$ZodType> = {}
  for (const [name, type] of variables) if (!taken.has(name)) shape[name] = schemaOf(type, kinds, bounds.get(name))
  return { ...common, body: z.strictObject({ ...shape, ...route.accepts }) }
}
