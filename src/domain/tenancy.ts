import { createHash, timingSafeEqual } from 'node:crypto'
import type { ChatIntegrationRow } from '../db/schema.ts'
import type { Queries, Store } from '../db/store.ts'
import { insertBot } from './bots/admin/bots.ts'
import { now } from './clock.ts'
import { notFound, unauthorized } from './errors.ts'
import { newId, newSecret } from './ids.ts'

/** Admin tokens are stored as SHA-256 digests: they are random 256-bit secrets, so no slow hash is needed. */
export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex')

/** The refusal of a webhook id that names no chat integration (404). */
export const unknownWebhook = (webhookId: string) => notFound('Chat integration with webhook id', webhookId)

export async function findChatIntegration(store: Store, webhookId: string): Promise<ChatIntegrationRow> {
  const integration = await store.read((q) => q.tenancy.chatIntegrationByWebhook(webhookId))
  if (!integration) throw unknownWebhook(webhookId)
  return integration
}

/**
 * Opens a workspace for an admin request. The token alone is looked up, then its workspace is
 * compared with x-workspace-id: a token only opens its own workspace, and every failure reads the
 * same so that a caller learns nothing about which part was wrong.
 */
export async function authenticateAdmin(store: Store, token: string | undefined, workspaceId: string | undefined): Promise<string> {
  const denied = unauthorized('a valid admin token and its x-workspace-id are required')
  if (!token || !workspaceId) throw denied
  const row = await store.read((q) => q.tenancy.adminTokenByHash(hashToken(token)))
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
  /** Generated when absent. */
  botId?: string
}

/** Inside a unit: a workspace with its admin token and one bot (with its chat integration, see insertBot). */
async function insertTenant(q: Queries, input: TenantInput): Promise<{ botId: string }> {
  const at = now()
  await q.tenancy.insertWorkspace({ id: input.workspaceId, name: 'Default workspace', createdAt: at, updatedAt: at })
  await q.tenancy.insertAdminToken({
    id: newId(),
    workspaceId: input.workspaceId,
    tokenHash: hashToken(input.adminToken),
    createdAt: at,
  })
  const bot = await insertBot(q, {
    id: input.botId,
    workspaceId: input.workspaceId,
    name: input.botName,
    handler: input.botHandler,
    url: null,
    tags: {},
    webhookId: input.webhookId,
    encryptionKey: input.encryptionKey,
  })
  return { botId: bot.id }
}

export const hasAnyWorkspace = (store: Store): Promise<boolean> => store.read((q) => q.tenancy.anyWorkspace())

/** A tenant (workspace, admin token, bot, chat integration), written at once. */
export const createTenant = (store: Store, input: TenantInput): Promise<{ botId: string }> => store.write((q) => insertTenant(q, input))

/** The first tenant, written unless the database has one already: whether it was. */
export const createFirstTenant = (store: Store, input: TenantInput): Promise<boolean> =>
  store.write(async (q) => {
    if (await q.tenancy.anyWorkspace()) return false
    await insertTenant(q, input)
    return true
  })

/** Every workspace, admin token (its id and age, never the token) and chat integration: what the command line shows. */
export const listTenants = (store: Store) => store.read((q) => q.tenancy.tenants())

/** A new admin token for a workspace, beside the ones it has (they keep working): returned here, and never again. */
export async function issueAdminToken(store: Store, workspaceId: string): Promise<string> {
  const token = `bp_pat_${newSecret(32)}`
  await store.write(async (q) => {
    const { workspaces } = await q.tenancy.tenants()
    if (!workspaces.some((workspace) => workspace.id === workspaceId)) throw notFound('Workspace', workspaceId)
    await q.tenancy.insertAdminToken({ id: newId(), workspaceId, tokenHash: hashToken(token), createdAt: now() })
  })
  return token
}

/** Revokes every admin token of a workspace but its newest (the end of a rotation): how many went. */
export const revokeOlderAdminTokens = (store: Store, workspaceId: string): Promise<number> =>
  store.write(async (q) => {
    const older = (await q.tenancy.tenants()).adminTokens.filter((token) => token.workspaceId === workspaceId).slice(0, -1)
    for (const token of older) await q.tenancy.deleteAdminToken(token.id)
    return older.length
  })
