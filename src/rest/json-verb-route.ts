import type { TypedDocumentNode } from '@graphql-typed-document-node/core'
import { z } from 'zod'
import { type Method, route } from './route.ts'

/** The variables of a JSON-verb operation: one `input` object. */
type JsonVerbInput = { input: Record<string, unknown> }

/** A request's path parameters, query parameters and JSON body together, as one operation's `input`. */
export const jsonVerbVariables = ({
  params,
  query,
  body,
}: {
  params: Record<string, string>
  query: URLSearchParams
  body: Record<string, unknown>
}): JsonVerbInput => ({
  input: { ...body, ...Object.fromEntries(query), ...params },
})

/**
 * The route factory of an API whose GraphQL operations take one JSON `input` and answer a JSON object
 * (the bot API): a route's input is the path parameters, the query parameters and the JSON
 * body together, checked by the API's table of input schemas, and its response body is the operation's result.
 */
export const jsonVerbRoutes =
  <TInputs extends Record<string, z.ZodObject>>(inputs: TInputs) =>
  <TName extends keyof TInputs & string>(
    operation: TName,
    method: Method,
    path: string,
    document: TypedDocumentNode<{ [K in TName]: Record<string, unknown> }, JsonVerbInput>,
    summary: string,
    returns: z.ZodType,
  ) =>
    route({
      operation,
      summary,
      returns,
      method,
      path,
      document,
      body: z.looseObject({}),
      input: inputs[operation],
      variables: jsonVerbVariables,
      response: (d) => d[operation],
    })
