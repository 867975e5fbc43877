import type { BotRow } from '../../../db/schema.ts'
import type { BotChanges, Queries } from '../../../db/store.ts'
import { now } from '../../clock.ts'
import type { AdminContext } from '../../context.ts'
import { invalidPayload, notFound } from '../../errors.ts'
import { removeFileBytes } from '../../file-bytes.ts'
import { newId, newSecret, newWebhookId } from '../../ids.ts'
import type { BotSetup } from '../../memo.ts'
import { type Cursored, keysetWindow, type PageWindow, type SortDirection, withCursors } from '../../paging.ts'
import { type ChatIntegrationInput, personalKeyChange } from '../../key-modes.ts'
import { checkBotUrl, checkHttpUrl } from '../../outbound-policy.ts'
import { checkWebhookSetting, webhookColumns, type WebhookSetting } from '../../integration-webhooks.ts'
import { newSigningSecret } from './secrets.ts'

/* The administration of bots: the verbs of the admin API on the workspace's bots. */

export type BotSortField = 'createdAt' | 'updatedAt'

export interface BotSort {
  field: BotSortField
  direction: SortDirection
}

export function listBots({ ctx, sort, window }: { ctx: AdminContext; sort: BotSort; window: PageWindow }): Promise<Cursored<BotRow>[]> {
  const tag = `bots:${sort.field}:${sort.direction}`
  return ctx.store.read(async (q) => {
    const rows = await q.bots.page(ctx.workspaceId, sort, keysetWindow(tag, window))
    return withCursors(tag, rows, (b) => [b[sort.field], b.id])
  })
}

export async function getBot({ ctx, id }: { ctx: AdminContext; id: string }): Promise<BotRow> {
  const row = await ctx.store.read((q) => q.bots.find(ctx.workspaceId, id))
  if (!row) throw notFound('Bot', id)
  return row
}

export type BotProtocol = BotRow['protocol']

export interface BotInput {
  name?: string | null
  url?: string | null
  tags?: Record<string, unknown> | null
  protocol?: string | null
  /** The bot's integrations as @botpress/client sends them: only `chat`, for its personal encryption key. */
  integrations?: { chat?: ChatIntegrationInput | null } | null
}

const protocols: readonly BotProtocol[] = ['webhook', 'botpress']

/** How events are POSTed to the bot's url: `webhook` (the signed event object) or `botpress` (an @botpress/sdk bot). */
function checkProtocol(protocol: string): BotProtocol {
  if (!(protocols as readonly string[]).includes(protocol)) {
    throw invalidPayload(`protocol must be "webhook" or "botpress", got ${JSON.stringify(protocol)}`)
  }
  return protocol as BotProtocol
}

/** What a new bot starts with: its own chat integration and signing secret. */
export interface NewBot {
  workspaceId: string
  name: string
  handler: string
  url: string | null
  tags: Record<string, string>
  protocol?: BotProtocol
  /** Generated when absent. */
  id?: string
  webhookId?: string
  encryptionKey?: string
  /** Personal mode from the start (see key-modes.ts); shared when absent. */
  personalEncryptionKey?: string | null
  /** The configuration's webhook (integration-webhooks.ts); none when absent. */
  webhook?: WebhookSetting
}

export const maxNameLength = 255

function checkName(name: string): string {
  if (name.length < 1 || name.length > maxNameLength) {
    throw invalidPayload(`name must be 1-${maxNameLength} characters, got ${name.length}`)
  }
  return name
}

const noWebhook: WebhookSetting = { webhookUrl: null, webhookSecret: null }

/**
 * The webhook a create or update sets: undefined when its input has no configuration of the chat
 * integration (it stays as it is), none when the configuration is null or has no webhookUrl (a
 * configuration replaces the whole of it, as Botpress' does).
 */
async function webhookChange(input: BotInput, ctx: AdminContext): Promise<WebhookSetting | undefined> {
  const configuration = input.integrations?.chat?.configuration
  if (configuration === undefined) return undefined
  return configuration === null ? noWebhook : checkWebhookSetting(configuration, ctx.bots.outbound)
}

/** Tags are an object of strings; in an update, null or '' removes a tag (as Botpress's updateBot). */
function checkTags(tags: Record<string, unknown>, removable: boolean): Record<string, string | null> {
  const checked: Record<string, string | null> = {}
  for (const [key, value] of Object.entries(tags)) {
    if (removable && (value === null || value === '')) checked[key] = null
    else if (typeof value === 'string') checked[key] = value
    else throw invalidPayload(`tags.${key} must be a string, got ${value === null ? 'null' : typeof value}`)
  }
  return checked
}

/**
 * Inside a unit: a bot, its signing secret, its chat integration (a webhook id and an encryption
 * key of its own) and its own user in that integration (id = bot id), the author of its messages.
 */
export async function insertBot(q: Queries, input: NewBot): Promise<BotRow> {
  const at = now()
  const bot: BotRow = {
    id: input.id ?? newId(),
    workspaceId: input.workspaceId,
    name: input.name,
    handler: input.handler,
    url: input.url,
    tags: input.tags,
    createdAt: at,
    updatedAt: at,
    deployedAt: at,
    signingSecret: newSigningSecret(),
    previousSigningSecret: null,
    previousSigningSecretExpiresAt: null,
    goneUrl: null,
    protocol: input.protocol ?? 'webhook',
  }
  const integrationId = newId()
  const encryptionKey = input.encryptionKey ?? newSecret(32)
  await q.bots.insert(bot)
  await q.tenancy.insertChatIntegration({
    id: integrationId,
    botId: bot.id,
    webhookId: input.webhookId ?? newWebhookId(),
    encryptionKey,
    personalEncryptionKey: input.personalEncryptionKey ?? null,
    createdAt: at,
    previousEncryptionKeys: null,
    ...webhookColumns(input.webhook ?? noWebhook, { id: integrationId, encryptionKey }),
  })
  await q.users.insert({
    integrationId,
    id: bot.id,
    name: bot.name,
    pictureUrl: null,
    profile: null,
    isBot: true,
    createdAt: at,
    updatedAt: at,
    idChosen: false,
  })
  return bot
}

/** A new bot of the workspace. It runs the built-in echo handler until it has a url. */
export async function createBot({ ctx, input }: { ctx: AdminContext; input: BotInput }): Promise<BotRow> {
  const tags = checkTags(input.tags ?? {}, false) as Record<string, string>
  const url = input.url == null ? null : await checkBotUrl(checkHttpUrl(input.url), ctx.bots.outbound)
  const name = input.name == null ? undefined : checkName(input.name)
  const protocol = input.protocol == null ? 'webhook' : checkProtocol(input.protocol)
  const personalEncryptionKey = input.integrations == null ? undefined : personalKeyChange(input.integrations.chat)
  const webhook = await webhookChange(input, ctx)
  return ctx.store.write(async (q) => {
    const id = newId()
    const bot = { id, workspaceId: ctx.workspaceId, name: name ?? `Bot ${id.slice(-6)}`, handler: 'echo', url, tags, protocol }
    return insertBot(q, { ...bot, personalEncryptionKey, webhook })
  })
}

/**
 * Changes the fields given: `url: null` removes the url, and `tags` are merged into the bot's (a
 * tag set to null or '' is removed). A url given turns delivery back on (after a 410 Gone), so
 * the delivery worker is woken once committed. `integrations.chat.configuration.encryptionKey`
 * sets the personal encryption key (null: back to the shared one); a key that changes ends the
 * integration's live listeners on every instance, since the keys they opened with may no longer
 * hold, and the next request of any instance verifies with the new one.
 */
export async function updateBot({ ctx, id, input }: { ctx: AdminContext; id: string; input: BotInput }): Promise<BotRow> {
  const changes: BotChanges = { updatedAt: now() }
  if (input.name != null) changes.name = checkName(input.name)
  if (input.protocol != null) changes.protocol = checkProtocol(input.protocol)
  if (input.url !== undefined) {
    changes.url = input.url === null ? null : await checkBotUrl(checkHttpUrl(input.url), ctx.bots.outbound)
    changes.goneUrl = null
  }
  const tagChanges = input.tags == null ? undefined : checkTags(input.tags, true)
  const personalKey = input.integrations == null ? undefined : personalKeyChange(input.integrations.chat)
  const webhook = await webhookChange(input, ctx)
  return ctx.store.write(async (q, after) => {
    const bot = await q.bots.find(ctx.workspaceId, id)
    if (!bot) throw notFound('Bot', id)
    if (personalKey !== undefined || webhook !== undefined) {
      const integration = await q.bots.integrationOf(id)
      if (!integration) throw notFound('Chat integration of bot', id)
      if (personalKey !== undefined && integration.personalEncryptionKey !== personalKey) {
        await q.tenancy.setPersonalEncryptionKey(integration.id, personalKey)
        after(() => ctx.signals.closeIntegration(integration.id))
      }
      if (webhook !== undefined) {
        const { webhookUrl, webhookSecret } = webhookColumns(webhook, integration)
        await q.tenancy.setWebhook(integration.id, webhookUrl, webhookSecret)
      }
    }
    if (tagChanges) {
      const merged: Record<string, string> = { ...bot.tags }
      for (const [key, value] of Object.entries(tagChanges)) {
        if (value === null) delete merged[key]
        else merged[key] = value
      }
      changes.tags = merged
    }
    if (input.url !== undefined) after(() => ctx.bots.wake())
    return (await q.bots.update(ctx.workspaceId, id, changes)) ?? bot
  })
}

/**
 * Deletes the bot with its chat integration and everything in it (users, conversations, messages,
 * logs); once committed, the integration's listeners end, as a deleted conversation's do.
 */
export function deleteBot({ ctx, id }: { ctx: AdminContext; id: string }): Promise<void> {
  return ctx.store.write(async (q, after) => {
    const integration = await q.bots.integrationOf(id)
    const fileIds = integration ? await q.files.idsOfIntegration(integration.id) : []
    if (!(await q.bots.delete(ctx.workspaceId, id))) throw notFound('Bot', id)
    if (integration) {
      after(() => {
        removeFileBytes(ctx.store, fileIds)
        ctx.signals.closeIntegration(integration.id)
      })
    }
  })
}

/** What an administrator needs to reach a bot: its chat integration and its current signing secret. */
export function getBotSetup({ ctx, id }: { ctx: AdminContext; id: string }): Promise<BotSetup> {
  // Read once per request and bot: a bot's fields (its secret, its integration) share one read.
  const ofRequest = (ctx.memo.botSetups ??= new Map())
  let setup = ofRequest.get(id)
  if (!setup) {
    setup = ctx.store.read(async (q) => {
      const [integration, bot] = await Promise.all([q.bots.integrationOf(id), q.bots.find(ctx.workspaceId, id)])
      if (!integration || !bot?.signingSecret) throw notFound('Chat integration of bot', id)
      return { integration, signingSecret: bot.signingSecret }
    })
    ofRequest.set(id, setup)
  }
  return setup
}
