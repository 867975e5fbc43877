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
  typeFromAST,
} from 'graphql'
import { z } from 'zod'
import type { AnyRoute } from './route.ts'

/*
 * What a REST request of a route may carry, derived once from the route and the GraphQL operation it
 * runs: the path parameters, the query parameters the route maps onto variables, and a JSON body of
 * the operation's other variables. The same zod schemas refuse a bad request before GraphQL sees it
 * (in the caller's words, rest/refusal-words.ts) and are published in the OpenAPI document.
 *
 * A @oneOf input is sent the Chat API's way, `{type: <field>, …that field's input}` (a message payload,
 * a bloc item), and an input with an `extra` JSON object keeps the properties it does not name (see
 * graphql/types/payload-input.ts, which converts between the two forms).
 */

export interface RequestSchema {
  path: z.ZodObject
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

const oneOfSchema = (type: GraphQLInputObjectType): z.ZodType => {
  const kinds = Object.values(type.getFields()).map((field) => {
    const input = getNamedType(field.type)
    if (!isInputObjectType(input)) throw new Error(`${type.name}.${field.name}: a @oneOf field is an input object here`)
    return objectSchema(input, { type: z.literal(field.name) })
  })
  return z.discriminatedUnion('type', kinds as [z.ZodObject, ...z.ZodObject[]])
}

function objectSchema(type: GraphQLInputObjectType, tag: z.ZodRawShape = {}): z.ZodObject {
  const fields = Object.values(type.getFields())
  const shape: Record<string, z.core.$ZodType> = { ...tag }
  for (const field of fields) if (field.name !== 'extra') shape[field.name] = schemaOf(field.type)
  const loose = fields.some((field) => field.name === 'extra')
  return loose ? z.looseObject(shape) : z.strictObject(shape)
}

const cache = new WeakMap<GraphQLInputType, z.ZodType>()

function requiredSchemaOf(type: GraphQLInputType): z.ZodType {
  if (isListType(type)) return z.array(schemaOf(type.ofType))
  if (isEnumType(type)) return z.enum(type.getValues().map((value) => value.name) as [string, ...string[]])
  if (isInputObjectType(type)) {
    let schema = cache.get(type)
    if (!schema) {
      schema = type.isOneOf ? oneOfSchema(type) : objectSchema(type)
      cache.set(type, schema)
    }
    return schema
  }
  const scalar = scalars[type.name]
  if (!scalar) throw new Error(`no REST schema for the GraphQL scalar ${type.name}`)
  return scalar()
}

/** A GraphQL input type as JSON: a nullable one may be left out or null. */
export function schemaOf(type: GraphQLInputType): z.ZodType {
  return isNonNullType(type) ? requiredSchemaOf(type.ofType) : requiredSchemaOf(type).nullish()
}

/** The `{name}` segments of a route's path. */
export const pathParams = (path: string) => [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1] as string)

/** Methods whose body is read: a DELETE's is ignored (the official client sends `{}`). */
export const takesBody = (method: string) => method === 'POST' || method === 'PUT' || method === 'PATCH'

export function requestSchema(schema: GraphQLSchema, route: AnyRoute): RequestSchema {
  const operation = (route.document as DocumentNode).definitions.find(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  )
  const variables = new Map(
    (operation?.variableDefinitions ?? []).map((definition) => {
      const type = typeFromAST(schema, definition.type) as GraphQLInputType | undefined
      if (!type) throw new Error(`REST route ${route.operation}: unknown type of $${definition.variable.name.value}`)
      return [definition.variable.name.value, type] as const
    }),
  )
  const params = pathParams(route.path)
  const path = z.object(Object.fromEntries(params.map((name) => [name, z.string()])))
  const queried = Object.entries(route.query ?? {})
  const query = z.object(
    Object.fromEntries(
      queried.map(([name, variable]) => {
        const type = variables.get(variable)
        if (!type) throw new Error(`REST route ${route.operation}: query parameter ${name} names no variable`)
        return [name, fromText(schemaOf(type), getNamedType(type).name)]
      }),
    ),
  )
  if (!takesBody(route.method)) return { path, query, body: undefined }
  if (route.body) return { path, query, body: route.body }
  const taken = new Set([...params, ...queried.map(([, variable]) => variable)])
  const shape: Record<string, z.core.$ZodType> = {}
  for (const [name, type] of variables) if (!taken.has(name)) shape[name] = schemaOf(type)
  return { path, query, body: z.strictObject({ ...shape, ...route.accepts }) }
}
