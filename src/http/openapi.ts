import { createRequire } from 'node:module'
import { DomainError } from '../domain/errors.ts'
import { type OpenApiDocument, openApiDocument } from '../openapi/document.ts'
import { openApiPage } from '../openapi/page.ts'
import type { Transport } from './mounts.ts'
import { json } from './responses.ts'
import { restRefusal } from './rest.ts'

const { version } = createRequire(import.meta.url)('../../package.json') as { version: string }

// Made on the first request for it: the route tables do not change while the process runs.
let made: { document: OpenApiDocument; page: string } | undefined
const madeOnce = () => {
  if (!made) {
    const document = openApiDocument(version)
    made = { document, page: openApiPage(document) }
  }
  return made
}

const readOnly = (request: Request, path: string) => {
  if (request.method !== 'GET' && request.method !== 'HEAD') throw new DomainError('MethodNotFound', `${path} answers GET`, { allow: 'GET' })
}

/** GET /openapi.json: the OpenAPI document of the REST APIs, its server the public URL the request reached. */
export const openApiTransport: Transport = {
  async serve(request, { publicUrl }) {
    readOnly(request, '/openapi.json')
    return json(200, { ...madeOnce().document, servers: [{ url: publicUrl() }] }, { 'cache-control': 'no-cache' })
  },
  refuse: restRefusal,
}

/** GET /docs/api: the document as a page (no script, nothing fetched elsewhere). */
export const apiPageTransport: Transport = {
  async serve(request) {
    readOnly(request, '/docs/api')
    return new Response(madeOnce().page, { status: 200, headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache' } })
  },
  refuse: restRefusal,
}
