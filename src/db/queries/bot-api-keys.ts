import { and, asc, eq, inArray } from 'drizzle-orm'
import { query, rowValues, type Run } from '../query.ts'
import type { BotApiKeyRow } from '../schema.ts'
import type { BotApiKeyQueries } from '../store.ts'

const insert = query(({ db, t: { botApiKeys } }, row: BotApiKeyRow) => db.insert(botApiKeys).values(rowValues(botApiKeys, row)))

const byHash = query(({ db, t: { botApiKeys, bots, chatIntegrations } }, v: { keyHash: string }) =>
  db
    .select({ key: botApiKeys, bot: bots, integration: chatIntegrations })
    .from(botApiKeys)
    .innerJoin(bots, eq(bots.id, botApiKeys.botId))
    .innerJoin(chatIntegrations, eq(chatIntegrations.botId, bots.id))
    .where(eq(botApiKeys.keyHash, v.keyHash)),
)

const ofBot = query(({ db, t: { botApiKeys } }, v: { botId: string }) =>
  db.select().from(botApiKeys).where(eq(botApiKeys.botId, v.botId)).orderBy(asc(botApiKeys.createdAt), asc(botApiKeys.id)),
)

const remove = query(({ db, t: { botApiKeys, bots } }, v: { workspaceId: string; id: string }) =>
  db
    .delete(botApiKeys)
    .where(and(eq(botApiKeys.id, v.id), inArray(botApiKeys.botId, db.select({ id: bots.id }).from(bots).where(eq(bots.workspaceId, v.workspaceId)))))
    .returning({ id: botApiKeys.id }),
)

export const botApiKeyQueries = (run: Run): BotApiKeyQueries => ({
  insert: (row) => run.run(insert, row),
  byHash: (keyHash) => run.one(byHash, { keyHash }),
  ofBot: (botId) => run.all(ofBot, { botId }),
  delete: async (workspaceId, id) => (await run.one(remove, { workspaceId, id })) !== undefined,
})
