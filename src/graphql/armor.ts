import type { Plugin } from 'graphql-yoga'
import { GraphQLError } from 'graphql'
import { maxAliasesPlugin } from '@escape.tech/graphql-armor-max-aliases'
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth'
import { maxTokensPlugin } from '@escape.tech/graphql-armor-max-tokens'
import { useCostLimit } from './cost.ts'

/**
 * Limits that refuse a hostile operation before it runs. They fit every operation of the web chat
 * and the REST layer with room to spare: the deepest, conversations → messages → author, is 8 deep,
 * and the costliest (the web chat's conversation view, every payload kind spelled out) costs about
 * 13,000 by cost.ts's prices. Introspection meets a depth and a size of its own: the standard
 * introspection query is 15 deep, and the chat schema's full answer is about 5,800 fields.
 */
export const executionLimits = {
  /**
   * Characters of a document, comments and whitespace included: the token limit counts neither, so
   * without this a 900 KB comment would be parsed and run. 50 characters a token on average is far
   * more than any real operation spends; long text belongs in variables.
   */
  documentLength: 100_000,
  depth: 12,
  aliases: 20,
  tokens: 2_000,
  cost: 100_000,
  introspectionFields: 20_000,
  introspectionDepth: 15,
} as const

/** Refuses a document over `documentLength` characters before it is lexed, as armor refuses before it runs. */
const maxDocumentLengthPlugin = (n: number): Plugin => ({
  onParse({ params }) {
    const length = typeof params.source === 'string' ? params.source.length : params.source.body.length
    if (length > n) {
      throw new GraphQLError(`Syntax Error: Document length limit of ${n} characters exceeded, found ${length} (comments and whitespace count).`)
    }
  },
})

export const armorPlugins = () => [
  maxDocumentLengthPlugin(executionLimits.documentLength),
  maxDepthPlugin({ n: executionLimits.depth, ignoreIntrospection: true, flattenFragments: true }),
  maxAliasesPlugin({ n: executionLimits.aliases }),
  maxTokensPlugin({ n: executionLimits.tokens }),
  useCostLimit(executionLimits),
]
