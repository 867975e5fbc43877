import { execute } from 'graphql'
import { ListenConversationDocument, type ListenConversationSubscription } from '../../__generated__/chat-operations.ts'
import { chatSchema } from '../../graphql/schema.ts'
import { toChatSignal } from './listen.ts'

/**
 * A signal in the Chat API's shape (`{type, data}`), made as the listen route makes it for its
 * listeners (its document's selection on the signal, then toChatSignal), for those that are no
 * listener: an integration's webhook (src/bots/integration-webhooks.ts). A selection on a signal
 * reads only what the signal carries, so it needs no caller; undefined for a signal the listen
 * route does not render (none of those posted).
 */
export async function chatSignalBody(signal: { conversationId: string }): Promise<ReturnType<typeof toChatSignal>> {
  const result = await execute({
    schema: chatSchema,
    document: ListenConversationDocument,
    rootValue: signal,
    variableValues: { id: signal.conversationId },
    contextValue: {},
  })
  if (result.errors?.length || !result.data) throw new Error(`the signal could not be rendered: ${result.errors?.map((e) => e.message).join('; ')}`)
  return toChatSignal((result.data as ListenConversationSubscription).conversationSignals)
}
