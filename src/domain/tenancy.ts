import { createHash, timingSafeEqual } from 'node:crypto'
import { eq } from 'drizzle-orm'
import type { Db } from '../db/client.ts'
import { adminTokens, bots, type ChatIntegrationRow, chatIntegrations, users, workspaces } from '../db/schema.ts'
import { now } from './clock.ts'
import { notFound, unauthorized } from './errors.ts'
import { newId } from './ids.ts'

/** Admin tokens are stored as SHA-256 digests: they are random 256-bit secrets, so no slow hash is needed. */
export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex')

export function findChatIntegration(db: Db, webhookId: string): ChatIntegrationRow {
  const integration = db.select().from(chatIntegrations).where(eq(chatIntegrations.webhookId, webhookId)).get()
  if (!integration) throw notFound('Chat integration with webhook id', webhookId)
  return integration
}

/**
 * Opens a workspace for an admin request. The token alone is looked up, then its workspace is
 * compared with x-workspace-id: a token only opens its own workspace, and every failure reads the
 * same so that a caller learns nothing about which part was wrong.
 */
export function authenticateAdmin(db: Db, token: string | undefined, workspaceId: string | undefined): string {
  const denied = unauthorized('a valid admin token and its x-workspace-id are required')
  if (!token || !workspaceId) throw denied
  const row = db.select().from(adminTokens).where(eq(adminTokens.tokenHash, hashToken(token))).get()
  if (!row) throw denied
  const expected = Buffer.from(row.workspaceId)
  const given = Buffer.from(workspaceId)
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw denied
  return row.workspaceId
}

export interface TenantInput {
  workspaceId: string
  adminToken: string
  webhookId: string
  encryptionKey: string
  botName: string
  botHandler: string
}

export const hasAnyWorkspace = (db: Db): boolean => db.select({ id: workspaces.id }).from(workspaces).limit(1).get() !== undefined

/**
 * A workspace with its admin token, one bot and that bot's chat integration, written at once. The
 * integration gets the bot's own user (id = bot id), the author of the bot's messages.
 */
export function createTenant(db: Db, input: TenantInput): { botId: string } {
  const at = now()
  const botId = newId()
  db.transaction((tx) => {
    tx.insert(workspaces).values({ id: input.workspaceId, name: 'Default workspace', createdAt: at, updatedAt: at }).run()
    tx.insert(adminTokens)
      .values({ id: newId(), workspaceId: input.workspaceId, tokenHash: hashToken(input.adminToken), createdAt: at })
      .run()
    tx.insert(bots)
      .values({
        id: botId,
        workspaceId: input.workspaceId,
        name: input.botName,
        handler: input.botHandler,
        tags: {},
        createdAt: at,
        updatedAt: at,
        deployedAt: at,
      })
      .run()
    const integrationId = newId()
    tx.insert(chatIntegrations)
      .values({
        id: integrationId,
        botId,
        webhookId: input.webhookId,
        encryptionKey: input.encryptionKey,
        createdAt: at,
      })
      .run()
    tx.insert(users)
      .values({ integrationId, id: botId, name: input.botName, isBot: true, createdAt: at, updatedAt: at })
      .run()
  })
  return { botId }
}
