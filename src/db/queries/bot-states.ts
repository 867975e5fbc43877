import { and, eq, or, sql } from 'drizzle-orm'
import { query, rowValues, type Run } from '../query.ts'
import type { BotStateRow } from '../schema.ts'
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

const put = query(({ db, t: { botStates } }, row: BotStateRow) =>
  db
    .insert(botStates)
    .values(rowValues(botStates, row))
    .onConflictDoUpdate({
      target: [botStates.botId, botStates.scope, botStates.scopeId],
      set: { value: sql`excluded.value`, updatedAt: sql`excluded.updated_at` },
    }),
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
  findScope: (botId, scope, scopeId) => run.one(findScope, { botId, scope, scopeId }),
})
