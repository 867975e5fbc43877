import type { Store } from '../db/store.ts'
import { DomainError } from '../domain/errors.ts'
import { findChatIntegration } from '../domain/tenancy.ts'
import type { Transport } from './mounts.ts'
import { json } from './responses.ts'
import { restRefusal } from './rest.ts'

/** Where things are, relative to the server's root (a base path in PUBLIC_URL keeps them right). */
const addresses = {
  health: 'healthz',
  readiness: 'readyz',
  chatApi: '{webhookId}',
  webChat: '{webhookId}/',
  chatGraphql: '{webhookId}/graphql',
  adminApi: 'v1/admin',
  adminGraphql: 'v1/admin/graphql',
  agentConsole: 'v1/agent/console',
  openApi: 'openapi.json',
  apiReference: 'docs/api',
}

const page = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Confab</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem}code{background:#f3f3f3;padding:0 .2em}</style></head>
<body>
<h1>Confab is running</h1>
<p>A self-hostable chat API for bots. Each bot's chat integration has a webhook id, printed at the first start
(<code>npm run confab -- credentials</code> shows it again):</p>
<ul>
<li>the web chat: <code>/{webhookId}/</code></li>
<li>the chat API (the <code>apiUrl</code> of <code>@botpress/chat</code>): <code>/{webhookId}</code>, and GraphQL (GraphiQL in a browser): <code>/{webhookId}/graphql</code></li>
<li>the administration API: <code>/v1/admin</code>, and its GraphQL: <a href="v1/admin/graphql">/v1/admin/graphql</a></li>
<li>the agent console (people answering in place of the bots, with an agent key): <a href="v1/agent/console">/v1/agent/console</a></li>
<li>the REST APIs' OpenAPI document: <a href="openapi.json">/openapi.json</a>, and as a page: <a href="docs/api">/docs/api</a></li>
<li>health: <a href="healthz">/healthz</a>, readiness: <a href="readyz">/readyz</a></li>
</ul>
<p>The documentation is in the project's <code>docs/</code> folder.</p>
</body>
</html>
`

/** GET /: a short page saying where the doors are (JSON for a client that asks for it); no id is listed. */
export const frontDoorTransport: Transport = {
  async serve(request) {
    if (request.method !== 'GET' && request.method !== 'HEAD') throw new DomainError('MethodNotFound', '/ answers GET', { allow: 'GET' })
    const accept = request.headers.get('accept') ?? ''
    if (accept.includes('application/json') && !accept.includes('text/html')) return json(200, { name: 'confab', addresses })
    return new Response(page, { status: 200, headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache' } })
  },
  refuse: restRefusal,
}

/**
 * GET /{webhookId}: the web chat lives at /{webhookId}/, where its page's relative URLs resolve; a
 * browser that left the slash off is sent there (relative, so that a base path in front is kept), when
 * the webhook id exists. Anything else on such an address is what it always was: no route.
 */
export function toWebChatTransport(store: Store): Transport {
  return {
    async serve(request, { params: { webhookId = '' }, url }) {
      if (request.method !== 'GET' && request.method !== 'HEAD') throw new DomainError('ResourceNotFound', `no route for ${url.pathname}`)
      await findChatIntegration(store, webhookId)
      return new Response(null, { status: 308, headers: { location: `${encodeURIComponent(webhookId)}/${url.search}` } })
    },
    refuse: restRefusal,
  }
}
