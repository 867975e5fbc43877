import { serveAgentConsole } from '../agent-console/serve.ts'
import { DomainError } from '../domain/errors.ts'
import type { Transport } from './mounts.ts'
import { restRefusal } from './rest.ts'

/** The agent console's page (/v1/agent/console) and script (/v1/agent/console.js): no key needed, the page asks for one. */
export const agentConsoleTransport = (file: 'page' | 'script'): Transport => ({
  async serve(request, { url }) {
    if (request.method !== 'GET' && request.method !== 'HEAD')
      throw new DomainError('MethodNotFound', 'the agent console is only served to GET', { allow: 'GET' })
    // The page's script is named relative to it: from …/console/ it would be looked for below.
    if (url.pathname.endsWith('/')) return new Response(null, { status: 308, headers: { location: '../console' } })
    return serveAgentConsole(file)
  },
  refuse: restRefusal,
})
