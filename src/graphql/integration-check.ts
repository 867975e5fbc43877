import type { Plugin } from 'graphql-yoga'
import { DomainError } from '../domain/errors.ts'
import { checkIntegrationIfUnchecked, integrationUnchecked } from '../domain/integration-cache.ts'
import type { GraphQLContext } from './context.ts'
import { failureToGraphQLError } from './errors.ts'

/**
 * A chat request opened with its integration from memory checks it in its first statement
 * (domain/integration-cache.ts); one that ran none (`hello`, `{ __typename }`) checks it here, once
 * executed and before it is answered, and is refused as its context would have been (404, 401).
 */
export const useIntegrationCheck = (): Plugin<GraphQLContext> => ({
  onExecute: ({ args }) => {
    const chat = (args.contextValue as GraphQLContext).chat
    // Most requests have nothing to check (SQLite, a request without a key): no hook, no await.
    if (!chat || !integrationUnchecked(chat.store)) return
    return {
      onExecuteDone: ({ setResult }) => {
        if (!integrationUnchecked(chat.store)) return
        return checkIntegrationIfUnchecked(chat.store).catch((error: unknown) => {
          if (!(error instanceof DomainError)) throw error
          setResult({ errors: [failureToGraphQLError(error, true)] })
        })
      },
    }
  },
})
