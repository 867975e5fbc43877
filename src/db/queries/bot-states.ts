import { and, asc, eq, lte, or, sql } from 'drizzle-orm'
import { limitOf, query, rowValues, type Run } from '../query.ts'
import type { BotStateRow } from '../schema.ts'

type ScopeState = Omit<BotStateRow, 'expiries' | 'expiresAt'>
import type { BotStateQueries } from '../store.ts'

const find = query(({ db, t: { botStates } }, v: { botId: string; conversationId: string; userId: string }) =>
  db
    .select()
    .from(botStates)
    .where(
      and(
        eq(botStates.botId, v.botId),
        or(
          and(eq(botStates.scope, 'conversation'), eq(botStates.scopeId, v.conversationId)),
          and(eq(botStates.scope, 'user'), eq(botStates.scopeId, v.userId)),
          and(eq(botStates.scope, 'bot'), eq(botStates.scopeId, '')),
        ),
      ),
    ),
)

// A whole scope written by a bot's handler or answer: the expiries kept (bot-api/states.ts reads them with the value).
const put = query(({ db, t: { botStates } }, row: ScopeState) =>
  db
    .insert(botStates)
    .values(rowValues(botStates, row))
    .onConflictDoUpdate({
      target: [botStates.botId, botStates.scope, botStates.scopeId],
      set: { value: sql`excluded.value`, updatedAt: sql`excluded.updated_at` },
    }),
)

// A scope written by the bot API: its value and its expiries.
const write = query(({ db, t: { botStates } }, row: BotStateRow) =>
  db
    .insert(botStates)
    .values(rowValues(botStates, row))
    .onConflictDoUpdate({
      target: [botStates.botId, botStates.scope, botStates.scopeId],
      set: { value: sql`excluded.value`, updatedAt: sql`excluded.updated_at`, expiries: sql`excluded.expiries`, expiresAt: sql`excluded.expires_at` },
    }),
)

const expiredBy = query(({ db, t: { botStates } }, v: { at: string; limit: number }) =>
  db.select().from(botStates).where(lte(botStates.expiresAt, v.at)).orderBy(asc(botStates.expiresAt)).limit(limitOf(v.limit)),
)

const findScope = query(({ db, t: { botStates } }, v: Pick<BotStateRow, 'botId' | 'scope' | 'scopeId'>) =>
  db
    .select()
    .from(botStates)
    .where(and(eq(botStates.botId, v.botId), eq(botStates.scope, v.scope), eq(botStates.scopeId, v.scopeId))),
)

export const botStateQueries = (run: Run): BotStateQueries => ({
  find: (botId, conversationId, userId) => run.all(find, { botId, conversationId, userId }),
  put: (row) => run.run(put, row),
  write: (row) => run.run(write, row),
  expiredBy: (at, limit) => run.all(expiredBy, { at, limit }),
  findScope: (botId, scope, scopeId) => run.one(findScope, { botId, scope, scopeId }),
})
