import type { Queries } from '../../db/store.ts'
import { type Json, botApiInputs } from '../../contracts/bot-api-inputs.ts'
import { invalidPayload } from '../errors.ts'
import { decodeCursor, encodeCursor } from '../paging.ts'
import type { BotApiContext } from './context.ts'
import { parseInput } from './inputs.ts'

/*
 * The tags a bot sets on its conversations (updateConversation), stored one row a tag, read back on
 * each conversation the bot API answers, and listed by value (listTagValues). The chat
 * integration's own (`chat:owner`, `chat:fid`) say who made a conversation: read from it, never set.
 */

export const tagKeyMaxLength = 100
export const tagValueMaxLength = 1000
/** The most tags a bot keeps on one conversation. */
export const tagsPerConversation = 50

/** What a bot's tag changes ask for: a value sets a tag, null or '' removes it (as Botpress' updateConversation). */
export function checkTagChanges(tags: Record<string, string | null>): [string, string | null][] {
  return Object.entries(tags).map(([key, value]) => {
    if (key.length < 1 || key.length > tagKeyMaxLength) throw invalidPayload(`tags: a tag name must be 1-${tagKeyMaxLength} characters, got ${key.length}`)
    if (key.startsWith('chat:')) throw invalidPayload(`tags.${key} is the chat integration's own tag, which a bot does not set`)
    if (value !== null && value.length > tagValueMaxLength) {
      throw invalidPayload(`tags.${key} must be at most ${tagValueMaxLength} characters, got ${value.length}`)
    }
    return [key, value === '' ? null : value]
  })
}

/** Inside a unit: applies checked changes to a conversation's tags, within the cap of tags per conversation. */
export async function changeConversationTags(q: Queries, integrationId: string, conversationId: string, changes: [string, string | null][]) {
  for (const [key, value] of changes) {
    if (value === null) await q.conversationTags.remove(integrationId, conversationId, key)
    else await q.conversationTags.set({ integrationId, conversationId, key, value })
  }
  const tags = (await conversationTagsOf(q, integrationId, [conversationId])).get(conversationId) ?? {}
  if (Object.keys(tags).length > tagsPerConversation) {
    throw invalidPayload(`a conversation keeps at most ${tagsPerConversation} tags a bot sets; this would make ${Object.keys(tags).length}`)
  }
  return tags
}

/** The tags a bot set on each of these conversations, by conversation id. */
export async function conversationTagsOf(q: Queries, integrationId: string, conversationIds: readonly string[]): Promise<Map<string, Record<string, string>>> {
  const byConversation = new Map<string, Record<string, string>>()
  for (const row of await q.conversationTags.ofConversations(integrationId, conversationIds)) {
    let tags = byConversation.get(row.conversationId)
    if (!tags) byConversation.set(row.conversationId, (tags = {}))
    tags[row.key] = row.value
  }
  return byConversation
}

const valuesPage = 20
const valuesSort = 'tagValues'

/**
 * listTagValues (GET /v1/chat/tags/{key}/values?type=…): the distinct values a tag takes across the
 * bot's conversations, in byte order, 20 a page. Users and messages keep no tags a bot sets: their
 * lists are empty, their one page the last.
 */
export function listBotApiTagValues(ctx: BotApiContext, input: Json): Promise<Json> {
  const { key, type, nextToken } = parseInput(botApiInputs.listTagValues, input)
  if (type !== 'conversation') return Promise.resolve({ tags: [], meta: {} })
  // The cursor names its key: a token of another key's list is refused.
  const after = nextToken === undefined ? undefined : decodeCursor(valuesSort, nextToken, 2)
  if (after && after[0] !== key) throw invalidPayload('nextToken is not a token this list issued')
  return ctx.store.read(async (q) => {
    const values = await q.conversationTags.values(ctx.integration.id, key, after?.[1], valuesPage + 1)
    const page = values.slice(0, valuesPage)
    const last = page.at(-1)
    return {
      tags: page.map((value) => ({ value })),
      meta: values.length > valuesPage && last !== undefined ? { nextToken: encodeCursor(valuesSort, [key, last]) } : {},
    }
  })
}
