import { STATUS_CODES } from 'node:http'
import { type ExecutionResult, getOperationAST } from 'graphql'
import { createHandler } from 'graphql-sse/lib/use/fetch'
import { isAsyncIterable, type Plugin } from 'graphql-yoga'
import { errorTypeOf } from '../domain/errors.ts'
import type { ErrorPath } from './errors.ts'
import { graphqlRefusal } from './refusals.ts'
import { withRequestId } from './request-id.ts'

interface ServerContext {
  requestId: string
}

/**
 * The graphql-sse protocol (both of its modes) on `…/graphql/stream`, run through the same yoga
 * instance as every other transport. Unlike @graphql-yoga/plugin-graphql-sse, it answers every
 * refusal before execution — a query that does not parse or validate, a context that cannot be made
 * (unknown webhook id, invalid key) — with its HTTP status and a GraphQL error body, and it masks
 * errors and stamps them with the request id as the HTTP pipeline does.
 */
export function useGraphQLSSE(errors: ErrorPath): Plugin<Record<string, unknown>, ServerContext> {
  const contexts = new WeakMap<Request, ServerContext>()
  let handler: ((request: Request) => Promise<Response>) | undefined

  const requestIdOf = (raw: Request) => contexts.get(raw)?.requestId ?? ''
  const masked = (result: ExecutionResult, requestId: string): ExecutionResult =>
    withRequestId(result.errors ? { ...result, errors: result.errors.map((e) => errors.mask(e)) } : result, requestId, errors)
  // graphql-sse's own response form: [body, init].
  const refuse = (status: number, refusals: readonly unknown[], requestId: string) => {
    const result = masked({ errors: refusals.map((e) => errors.mask(e)) }, requestId)
    // Headers a refusal needs (the Allow of a mutation sent with GET) travel in its http extension.
    const http = result.errors?.[0]?.extensions.http as { headers?: Record<string, string> } | undefined
    return [
      JSON.stringify(result),
      {
        status,
        statusText: STATUS_CODES[status] ?? 'Error',
        headers: { ...http?.headers, 'content-type': 'application/json; charset=utf-8', 'x-request-id': requestId },
      },
    ] as const
  }

  // graphql-sse refuses some requests itself ("Stream not found", "Unparsable URL") with bare errors.
  const explained = async (request: Request, response: Response, requestId: string): Promise<Response> => {
    if (response.status < 400) return response
    const text = await response.text()
    let body: { errors?: { message?: unknown; extensions?: { type?: unknown } }[] } | undefined
    try {
      body = JSON.parse(text)
    } catch {
      body = undefined
    }
    const [first] = body?.errors ?? []
    if (typeof first?.extensions?.type === 'string') {
      return new Response(text, { status: response.status, headers: response.headers })
    }
    const message = typeof first?.message === 'string' ? first.message : text || 'the graphql-sse request was refused'
    const allow = response.headers.get('allow')
    const failure = { type: errorTypeOf(response.status), status: response.status, message, ...(allow ? { headers: { allow } } : {}) }
    return graphqlRefusal(request, failure, requestId)
  }

  return {
    onYogaInit({ yoga }) {
      handler = createHandler(
        {
          async onSubscribe(req, params) {
            const serverContext = contexts.get(req.raw)
            const requestId = serverContext?.requestId ?? ''
            const enveloped = yoga.getEnveloped({ ...serverContext, request: req.raw, params })
            let document
            try {
              document = enveloped.parse(params.query)
              const invalid = enveloped.validate(enveloped.schema, document)
              if (invalid.length > 0) return refuse(400, invalid, requestId)
            } catch (error) {
              // The execution limits (and a mutation sent with GET) refuse by throwing from parse or validate.
              const refusal = errors.mask(error)
              return refuse(refusal.extensions.status as number, [refusal], requestId)
            }
            let contextValue
            try {
              contextValue = await enveloped.contextFactory()
            } catch (error) {
              const refusal = errors.mask(error)
              return refuse(refusal.extensions.status as number, [refusal], requestId)
            }
            const args = {
              schema: enveloped.schema,
              document,
              contextValue,
              variableValues: params.variables,
              operationName: params.operationName,
            }
            const operation = getOperationAST(document, params.operationName)
            const result = await (operation?.operation === 'subscription' ? enveloped.subscribe : enveloped.execute)(args)
            if (isAsyncIterable(result)) return result as AsyncIterable<ExecutionResult>
            // graphql-sse only takes a result that has `data`; a refused subscription has none.
            const single = result as ExecutionResult
            return 'data' in single ? single : { ...single, data: null }
          },
          onNext: (_ctx, req, result) => masked(result as ExecutionResult, requestIdOf(req.raw)),
        },
        yoga.fetchAPI,
      )
    },
    onRequest({ request, url, serverContext, endResponse }) {
      if (!handler || !/\/graphql\/stream\/?$/.test(url.pathname)) return
      contexts.set(request, serverContext)
      return handler(request).then(async (response) => endResponse(await explained(request, response, serverContext.requestId)))
    },
  }
}
