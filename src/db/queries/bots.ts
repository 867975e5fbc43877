import { and, eq } from 'drizzle-orm'
import { columnsKey, keyset, limitOf, type On, query, rowValues, type Run, setOf, windowValues, type WindowValues } from '../query.ts'
import type { BotRow } from '../schema.ts'
import type { BotChanges, BotQueries, NewBot } from '../store.ts'

type Id = { workspaceId: string; id: string }

const byId = ({ t: { bots } }: On, v: Id) => and(eq(bots.workspaceId, v.workspaceId), eq(bots.id, v.id))

const insert = query(({ db, t: { bots } }, row: BotRow) => db.insert(bots).values(rowValues(bots, row)))

const find = query((on, v: Id) => on.db.select().from(on.t.bots).where(byId(on, v)))

const update = query(
  (on, v: Id & BotChanges, key) =>
    on.db
      .update(on.t.bots)
      .set(rowValues(on.t.bots, setOf(v, key)))
      .where(byId(on, v))
      .returning(),
  ({ workspaceId: _w, id: _id, ...changes }) => columnsKey(changes),
)

const remove = query((on, v: Id) => on.db.delete(on.t.bots).where(byId(on, v)).returning({ id: on.t.bots.id }))

const integrationOf = query(({ db, t: { chatIntegrations } }, v: { botId: string }) =>
  db.select().from(chatIntegrations).where(eq(chatIntegrations.botId, v.botId)),
)

type Page = { workspaceId: string; field: 'createdAt' | 'updatedAt'; direction: 'asc' | 'desc' } & WindowValues

const page = query(
  ({ db, t: { bots } }, v: Page, key) => {
    const [field, direction, shape] = String(key).split(':') as [Page['field'], Page['direction'], string]
    const window = keyset([bots[field], bots.id], direction, v, Number(shape))
    return db
      .select()
      .from(bots)
      .where(and(eq(bots.workspaceId, v.workspaceId), window.where))
      .orderBy(...window.orderBy)
      .limit(limitOf(v.limit))
  },
  (v) => `${v.field}:${v.direction}:${v.shape}`,
)

export const ofIntegration = query(({ db, t: { bots, chatIntegrations } }, v: { integrationId: string }) =>
  db
    .select({ bot: bots, integration: chatIntegrations })
    .from(chatIntegrations)
    .innerJoin(bots, eq(bots.id, chatIntegrations.botId))
    .where(eq(chatIntegrations.id, v.integrationId)),
)

const markUrlGone = query(({ db, t: { bots } }, v: { id: string; url: string }) => db.update(bots).set({ goneUrl: v.url }).where(eq(bots.id, v.id)))

/** A new bot with every column set (a prepared insert writes the columns its first call set): its optional ones as they are left. */
const complete = (row: NewBot): BotRow => ({
  ...row,
  url: row.url ?? null,
  signingSecret: row.signingSecret ?? null,
  previousSigningSecret: row.previousSigningSecret ?? null,
  previousSigningSecretExpiresAt: row.previousSigningSecretExpiresAt ?? null,
  goneUrl: row.goneUrl ?? null,
  protocol: row.protocol ?? 'webhook',
})

export const botQueries = (run: Run): BotQueries => ({
  insert: (row) => run.run(insert, complete(row)),
  find: (workspaceId, id) => run.one(find, { workspaceId, id }),
  update: (workspaceId, id, changes) => run.one(update, { ...changes, workspaceId, id }),
  delete: async (workspaceId, id) => (await run.one(remove, { workspaceId, id })) !== undefined,
  integrationOf: (botId) => run.one(integrationOf, { botId }),
  page: (workspaceId, sort, window) => run.all(page, { workspaceId, ...sort, ...windowValues(window) }),
  ofIntegration: (integrationId) => run.one(ofIntegration, { integrationId }),
  markUrlGone: (id, url) => run.run(markUrlGone, { id, url }),
})
