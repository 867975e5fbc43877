import { costLimitPlugin } from '@escape.tech/graphql-armor-cost-limit'
import { maxAliasesPlugin } from '@escape.tech/graphql-armor-max-aliases'
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth'
import { maxTokensPlugin } from '@escape.tech/graphql-armor-max-tokens'

/**
 * Limits that refuse a hostile operation before it runs. They fit every operation of the web chat
 * and the REST layer with room to spare: the deepest, conversations → messages → author, is 8 deep,
 * and the costliest (the web chat's conversation view, every payload kind spelled out) costs about
 * 27,000 under armor's cost model, where each level of depth multiplies by `depthCostFactor`.
 */
export const executionLimits = {
  depth: 12,
  aliases: 20,
  tokens: 2_000,
  cost: 100_000,
  depthCostFactor: 1.2,
} as const

export const armorPlugins = () => [
  maxDepthPlugin({ n: executionLimits.depth, ignoreIntrospection: true, flattenFragments: true }),
  maxAliasesPlugin({ n: executionLimits.aliases }),
  maxTokensPlugin({ n: executionLimits.tokens }),
  costLimitPlugin({
    maxCost: executionLimits.cost,
    depthCostFactor: executionLimits.depthCostFactor,
    ignoreIntrospection: true,
  }),
]
