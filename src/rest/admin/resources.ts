import { z } from 'zod'
import { Meta, timestamp, User } from '../chat/resources.ts'

/* The administration API's bodies (the fragments of bots.graphql as the routes shape them). */

const botSummaryShape = {
  id: z.string(),
  createdAt: timestamp,
  updatedAt: timestamp,
  name: z.string(),
  deployedAt: timestamp.optional(),
  tags: z.record(z.string(), z.string()),
}

export const BotSummary = z.object(botSummaryShape).meta({ id: 'BotSummary' })

export const Bot = z
  .object({
    ...botSummaryShape,
    url: z.string().optional().describe('Its credentials (user:password@) shown as ***.'),
    protocol: z.enum(['botpress', 'webhook']),
    integrations: z.object({
      chat: z.object({
        enabled: z.boolean(),
        webhookId: z.string(),
        webhookUrl: z.string(),
        encryptionMode: z.enum(['shared', 'personal']),
        configuration: z
          .object({
            webhookUrl: z.string().optional().describe('Where every stored signal of the integration is also POSTed (its credentials shown as ***).'),
            hasWebhookSecret: z.boolean().describe('Whether a webhookSecret is set; no secret nor encryption key is ever shown.'),
          })
          .describe("What may be shown of the configuration. Its webhookUrl is not `webhookUrl` beside it, the chat API's base URL."),
      }),
    }),
  })
  .meta({ id: 'Bot' })

/** createBot's bot: the one answer that shows its signing secret (besides rotateBotSigningSecrets). */
export const CreatedBot = Bot.extend({ signingSecret: z.string() }).meta({ id: 'CreatedBot' })

export const BotApiKey = z.object({ id: z.string(), createdAt: timestamp, note: z.string().optional() }).meta({ id: 'BotApiKey' })

export const BotLog = z
  .object({
    timestamp,
    level: z.string(),
    message: z.string(),
    conversationId: z.string().optional(),
    userId: z.string().optional(),
  })
  .meta({ id: 'BotLog' })

export const BotList = z.object({ bots: z.array(BotSummary), meta: Meta })
export const BotLogPage = z.object({ logs: z.array(BotLog), nextToken: z.string().optional() })

export const BotConversation = z
  .object({
    id: z.string(),
    ownerId: z.string(),
    createdAt: timestamp,
    updatedAt: timestamp,
    handledBy: z.enum(['bot', 'waiting', 'agent', 'closed']).describe('Who answers the user: the bot, nobody yet (the queue), an agent, or closed by one.'),
    agentId: z.string().optional().describe('The agent who holds the conversation (or closed it).'),
  })
  .meta({ id: 'BotConversation' })

/** A bot's users read as the chat API shows a user. */
export const BotUserList = z.object({ users: z.array(User), meta: Meta })
export const BotConversationList = z.object({ conversations: z.array(BotConversation), meta: Meta })
/** Everything Confab holds about one user (docs/guides/running-on-the-internet.md, "Deletion, export and retention"). */
export const BotUserExport = z
  .looseObject({ user: z.looseObject({ id: z.string() }), conversations: z.array(z.looseObject({})), files: z.array(z.looseObject({})) })
  .meta({ id: 'BotUserExport' })
