import { DomainError } from '../domain/errors.ts'
import { type ServerContext, withServerContext } from '../graphql/yoga.ts'
import { graphqlRefusal } from '../graphql/refusals.ts'
import { withLimitedBody } from './body.ts'
import { asksForGraphiQL, type GraphiQLPages } from './graphiql.ts'
import type { Transport } from './mounts.ts'

interface YogaServer {
  /** Called without a server context: the request carries it (withServerContext). */
  handleRequest(request: Request, serverContext?: ServerContext): Response | Promise<Response>
}

/**
 * GraphQL over HTTP (and the graphql-sse protocol, a plugin of the same yoga server) at one
 * endpoint. Methods the endpoint does not serve are refused before the body is read; the body is read
 * under the interface's payload limit, then yoga takes over.
 */
export function graphqlOverHttp(
  yoga: YogaServer,
  bodyLimit: number,
  {
    methods = ['GET', 'POST'],
    streams = false,
    replicated = false,
    graphiql,
  }: {
    methods?: readonly string[]
    streams?: boolean
    replicated?: boolean
    /** The GraphiQL page a browser gets here (http/graphiql.ts); none (GRAPHIQL=off): a GET is a GraphQL request. */
    graphiql?: { pages: GraphiQLPages; scope: 'chat' | 'admin' }
  } = {},
): Transport {
  return {
    // A POST of queries only may be a read (the replica checks its root fields: graphql/replica-reads.ts).
    replicable: (method) => replicated && method === 'POST' && 'if-query',
    async serve(request, landing) {
      const { requestId, params, clientAddress, publicUrl } = landing
      if (!methods.includes(request.method)) {
        throw new DomainError('MethodNotFound', `this GraphQL endpoint takes ${methods.join(', ')}`, { allow: methods.join(', ') })
      }
      if (graphiql && asksForGraphiQL(request)) return graphiql.pages(request, landing, graphiql.scope)
      const limited = await withLimitedBody(request, bodyLimit, streams ? request.signal : undefined)
      // handleRequest, not fetch: the app's own server adapter has already followed this request's
      // abort signal, which `fetch` would do again.
      return yoga.handleRequest(withServerContext(limited, { requestId, webhookId: params.webhookId, clientAddress, publicUrl, labelled: landing }))
    },
    refuse: graphqlRefusal,
  }
}
