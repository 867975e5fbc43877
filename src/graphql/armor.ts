import { costLimitPlugin } from '@escape.tech/graphql-armor-cost-limit'
import { maxAliasesPlugin } from '@escape.tech/graphql-armor-max-aliases'
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth'
import { maxTokensPlugin } from '@escape.tech/graphql-armor-max-tokens'

/**
 * Limits that refuse a hostile operation before it runs. They fit every operation of the web chat
 * and the REST layer with room to spare: the deepest, conversations → messages → author, is 8 deep.
 */
export const executionLimits = {
  depth: 12,
  aliases: 20,
  tokens: 2_000,
  cost: 20_000,
} as const

export const armorPlugins = () => [
  maxDepthPlugin({ n: executionLimits.depth, ignoreIntrospection: true, flattenFragments: true }),
  maxAliasesPlugin({ n: executionLimits.aliases }),
  maxTokensPlugin({ n: executionLimits.tokens }),
  costLimitPlugin({ maxCost: executionLimits.cost, ignoreIntrospection: true }),
]
