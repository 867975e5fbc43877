import { z } from 'zod'
import { timestamp } from '../chat/resources.ts'

/*
 * The bot API's resources as @botpress/client reads them (domain/bot-api/shapes.ts and states.ts make
 * them): what the OpenAPI document publishes, and what the test suite checks every response against.
 * Loose objects: @botpress/client's types have fields Confab leaves out, and a bot reads what is there.
 */

const json = z.record(z.string(), z.unknown())
const tags = z.record(z.string(), z.string()).describe("The chat integration's tags, prefixed `chat:` (`chat:owner`, `chat:fid`, `chat:profile`)")

export const BotConversation = z
  .looseObject({ id: z.string(), createdAt: timestamp, updatedAt: timestamp, channel: z.string(), integration: z.string(), tags })
  .meta({ id: 'BotApiConversation' })

export const BotUser = z
  .looseObject({
    id: z.string(),
    createdAt: timestamp,
    updatedAt: timestamp,
    tags,
    name: z.string().optional(),
    pictureUrl: z.string().optional(),
  })
  .meta({ id: 'BotApiUser' })

export const BotMessage = z
  .looseObject({
    id: z.string(),
    createdAt: timestamp,
    updatedAt: timestamp,
    type: z.string().describe('The payload kind (`text`, `image`, …)'),
    payload: json.describe('The payload without its `type`, metadata included'),
    direction: z.enum(['incoming', 'outgoing']),
    userId: z.string(),
    conversationId: z.string(),
    tags: json,
  })
  .meta({ id: 'BotApiMessage' })

export const BotEvent = z
  .looseObject({
    id: z.string(),
    createdAt: timestamp,
    type: z.string().describe("`chat:custom` for a user's custom event; the bot's own keep their type"),
    payload: json,
    conversationId: z.string().nullable(),
    userId: z.string().nullable(),
    messageId: z.string().nullable(),
    status: z.string(),
    failureReason: z.string().nullable(),
  })
  .meta({ id: 'BotApiEvent' })

export const BotState = z
  .looseObject({
    id: z.string(),
    botId: z.string(),
    type: z.enum(['conversation', 'user', 'bot']),
    name: z.string(),
    conversationId: z.string().optional(),
    userId: z.string().optional(),
    payload: z.unknown().describe('The state, as it was set'),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'BotApiState' })
