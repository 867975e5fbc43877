import { getOperationAST } from 'graphql'
import { createGraphQLError, type Plugin } from 'graphql-yoga'

/**
 * The content types a browser sends cross-origin without asking first (no CORS preflight): a page of
 * any site can make a visitor's browser POST a form or a text body to Confab. Such a request may read
 * (yoga accepts a query as a form, as GraphQL over HTTP allows), but never write.
 */
const simpleContentTypes = ['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain']

const mediaTypeOf = (request: Request) => (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase()

/**
 * Cross-site request forgery: a mutation is refused (415) unless it comes in a body a browser sends
 * only after a CORS preflight, JSON; as Apollo Server's CSRF prevention does, and as yoga refuses a
 * mutation sent with GET.
 */
export const useCsrfPrevention = (): Plugin => ({
  onParse() {
    return ({ result, context: { request, params } }) => {
      if (request?.method !== 'POST' || result instanceof Error) return
      if (!simpleContentTypes.includes(mediaTypeOf(request))) return
      if (getOperationAST(result, params?.operationName)?.operation !== 'mutation') return
      throw createGraphQLError('a mutation is sent as application/json (a form or text body, which any web page can make a browser send, may only query)', {
        extensions: { http: { status: 415 } },
      })
    }
  },
})
