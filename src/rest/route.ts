import type { TypedDocumentNode } from '@graphql-typed-document-node/core'

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE'

export interface RestRequest {
  params: Record<string, string>
  query: URLSearchParams
  body: Record<string, unknown>
}

/**
 * One REST operation of the spec: its path (verbatim, `{param}` segments), the GraphQL operation
 * it runs, and how the response body is made from the operation's data. Variables are picked by
 * name from the path parameters, then the JSON body, unless the route maps them itself.
 */
export interface Route<TData = any, TVariables = any> {
  operation: string
  method: Method
  path: string
  document: TypedDocumentNode<TData, TVariables>
  variables?: (request: RestRequest) => TVariables
  response: (data: TData) => unknown
}

export const route = <TData, TVariables>(declaration: Route<TData, TVariables>): Route<TData, TVariables> =>
  declaration
