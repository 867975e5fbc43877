import { type Json, botApiInputs } from '../../contracts/bot-api-inputs.ts'
import { parseInput } from './inputs.ts'

/**
 * listTagValues (GET /v1/chat/tags/{key}/values?type=…): the values a tag takes across the bot's
 * users, conversations or messages. Confab keeps none of the tags a bot sets (create and update take
 * and drop them), and its own (`chat:owner`, `chat:fid`, `chat:profile`) are ids and profiles, read on
 * each resource rather than listed across them: every tag's list is empty, its one page the last.
 */
export async function listBotApiTagValues(_ctx: unknown, input: Json): Promise<Json> {
  parseInput(botApiInputs.listTagValues, input)
  return { tags: [], meta: {} }
}
