import type { TypedDocumentNode } from '@graphql-typed-document-node/core'
import type { z } from 'zod'

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

export interface RestRequest {
  params: Record<string, string>
  query: URLSearchParams
  body: Record<string, unknown>
}

interface RouteBase<TData, TVariables> {
  operation: string
  method: Method
  path: string
  document: TypedDocumentNode<TData, TVariables>
  /** What the operation does, for the OpenAPI document. */
  summary: string
  /** Query parameters, each onto the operation variable it names (`{ nextToken: 'after' }`). */
  query?: Record<string, string>
  /** Request headers, each onto the operation variable it names, over a query parameter's (`{ 'last-event-id': 'since' }`). */
  headers?: Record<string, string>
  /**
   * Picks the variables itself (rather than by name from the path, the query and the body); the body
   * is then any JSON object unless `body` declares it.
   */
  variables?: (request: RestRequest) => TVariables
  /** The JSON body, where it is not the operation's variables (see rest/request-schema.ts). */
  body?: z.ZodObject
  /**
   * The whole input (path, query and body together) of an operation that checks it itself: the
   * OpenAPI document publishes its query parameters or its body from it.
   */
  input?: z.ZodObject
  /** Body properties the REST form takes besides the operation's variables, which `mapBody` turns into them. */
  accepts?: z.ZodRawShape
  /** Reshapes the JSON body before variables are picked from it (e.g. a payload onto its GraphQL input). */
  mapBody?: (body: Record<string, unknown>) => Record<string, unknown>
}

/**
 * One REST operation of the spec: its path (verbatim, `{param}` segments), the GraphQL operation
 * it runs, and how the response body is made from the operation's data. Variables are picked by
 * name from the path parameters, then the JSON body, unless the route maps them itself.
 */
// biome-ignore lint/suspicious/noExplicitAny: a table of routes mixes operations; each route is typed where it is declared
export interface Route<TData = any, TVariables = any> extends RouteBase<TData, TVariables> {
  kind: 'call'
  response: (data: TData) => unknown
  /** The 200 body's schema, as the OpenAPI document publishes it. */
  returns: z.ZodType
}

/** A REST operation answered as Server-Sent Events: one `data:` message per subscription result. */
// biome-ignore lint/suspicious/noExplicitAny: as Route
export interface StreamRoute<TData = any, TVariables = any> extends RouteBase<TData, TVariables> {
  kind: 'stream'
  event: (data: TData) => unknown
  /** The schema of each message's data, as the OpenAPI document publishes it. */
  emits: z.ZodType
}

export type AnyRoute = Route | StreamRoute

export const route = <TData, TVariables>(declaration: Omit<Route<TData, TVariables>, 'kind'>): Route<TData, TVariables> => ({
  kind: 'call',
  ...declaration,
})

export const stream = <TData, TVariables>(declaration: Omit<StreamRoute<TData, TVariables>, 'kind'>): StreamRoute<TData, TVariables> => ({
  kind: 'stream',
  ...declaration,
})
