import type { Store } from '../db/store.ts'
import { DomainError } from '../domain/errors.ts'
import { findChatIntegration } from '../domain/tenancy.ts'
import { serveWebChat } from '../webchat/serve.ts'
import type { Transport } from './mounts.ts'
import { restRefusal } from './rest.ts'

/** The web chat's page and script under /{webhookId}/, for a webhook id that exists. */
export function webChatTransport(store: Store): Transport {
  return {
    async serve(request, { params: { webhookId = '' } }) {
      if (request.method !== 'GET') throw new DomainError('MethodNotFound', 'the web chat is only served to GET', { allow: 'GET' })
      await findChatIntegration(store, webhookId)
      return serveWebChat(webhookId, new URL(request.url).pathname.endsWith('/webchat.js') ? 'script' : 'page')
    },
    refuse: restRefusal,
  }
}
