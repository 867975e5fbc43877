import { asc, eq } from 'drizzle-orm'
import { fixedLimit, query, rowValues, type Run } from '../query.ts'
import type { AdminTokenRow, ChatIntegrationRow, WorkspaceRow } from '../schema.ts'
import type { EncryptionKeys, TenancyQueries } from '../store.ts'

export const anyWorkspace = query(({ db, t: { workspaces } }, _: object) => db.select({ id: workspaces.id }).from(workspaces).limit(fixedLimit(1)))

const insertWorkspace = query(({ db, t: { workspaces } }, row: WorkspaceRow) => db.insert(workspaces).values(rowValues(workspaces, row)))

const insertAdminToken = query(({ db, t: { adminTokens } }, row: AdminTokenRow) => db.insert(adminTokens).values(rowValues(adminTokens, row)))

const adminTokenByHash = query(({ db, t: { adminTokens } }, v: { tokenHash: string }) =>
  db.select().from(adminTokens).where(eq(adminTokens.tokenHash, v.tokenHash)),
)

const insertChatIntegration = query(({ db, t: { chatIntegrations } }, row: ChatIntegrationRow) =>
  db.insert(chatIntegrations).values(rowValues(chatIntegrations, row)),
)

export const chatIntegrationByWebhook = query(({ db, t: { chatIntegrations } }, v: { webhookId: string }) =>
  db.select().from(chatIntegrations).where(eq(chatIntegrations.webhookId, v.webhookId)),
)

const workspaceList = query(({ db, t: { workspaces } }, _: object) =>
  db.select({ id: workspaces.id, name: workspaces.name }).from(workspaces).orderBy(asc(workspaces.createdAt)),
)

const adminTokenList = query(({ db, t: { adminTokens } }, _: object) =>
  db
    .select({ id: adminTokens.id, workspaceId: adminTokens.workspaceId, createdAt: adminTokens.createdAt })
    .from(adminTokens)
    .orderBy(asc(adminTokens.createdAt), asc(adminTokens.id)),
)

const integrationList = query(({ db, t: { bots, chatIntegrations } }, _: object) =>
  db
    .select({ workspaceId: bots.workspaceId, botId: bots.id, botName: bots.name, webhookId: chatIntegrations.webhookId })
    .from(chatIntegrations)
    .innerJoin(bots, eq(bots.id, chatIntegrations.botId))
    .orderBy(asc(bots.createdAt), asc(bots.id)),
)

const deleteAdminToken = query(({ db, t: { adminTokens } }, v: { id: string }) => db.delete(adminTokens).where(eq(adminTokens.id, v.id)))

const setPersonalEncryptionKey = query(({ db, t: { chatIntegrations } }, v: { integrationId: string; key: string | null }) =>
  db.update(chatIntegrations).set({ personalEncryptionKey: v.key }).where(eq(chatIntegrations.id, v.integrationId)),
)

const setWebhook = query(({ db, t: { chatIntegrations } }, v: { integrationId: string; webhookUrl: string | null; webhookSecret: string | null }) =>
  db.update(chatIntegrations).set({ webhookUrl: v.webhookUrl, webhookSecret: v.webhookSecret }).where(eq(chatIntegrations.id, v.integrationId)),
)

// Made for each call (key null): a rotation is rare, and its list of keys is one JSON value, not a list to bind.
const setEncryptionKeys = query(
  ({ db, t: { chatIntegrations } }, v: EncryptionKeys & { integrationId: string }) =>
    db
      .update(chatIntegrations)
      .set(
        rowValues(chatIntegrations, {
          encryptionKey: v.encryptionKey,
          personalEncryptionKey: v.personalEncryptionKey,
          previousEncryptionKeys: v.previousEncryptionKeys,
          webhookSecret: v.webhookSecret,
        }),
      )
      .where(eq(chatIntegrations.id, v.integrationId)),
  () => null,
)

export const tenancyQueries = (run: Run): TenancyQueries => ({
  anyWorkspace: async () => (await run.one(anyWorkspace, {})) !== undefined,
  insertWorkspace: (row) => run.run(insertWorkspace, row),
  insertAdminToken: (row) => run.run(insertAdminToken, row),
  adminTokenByHash: (tokenHash) => run.one(adminTokenByHash, { tokenHash }),
  insertChatIntegration: (row) => run.run(insertChatIntegration, row),
  chatIntegrationByWebhook: (webhookId) => run.one(chatIntegrationByWebhook, { webhookId }),
  tenants: async () => ({
    workspaces: await run.all(workspaceList, {}),
    adminTokens: await run.all(adminTokenList, {}),
    integrations: await run.all(integrationList, {}),
  }),
  deleteAdminToken: (id) => run.run(deleteAdminToken, { id }),
  setPersonalEncryptionKey: (integrationId, key) => run.run(setPersonalEncryptionKey, { integrationId, key }),
  setWebhook: (integrationId, webhookUrl, webhookSecret) => run.run(setWebhook, { integrationId, webhookUrl, webhookSecret }),
  setEncryptionKeys: (integrationId, keys) => run.run(setEncryptionKeys, { ...keys, integrationId }),
})
