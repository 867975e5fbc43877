import { sql } from 'drizzle-orm'
import type { SqlEngine } from './sql-engine.ts'
import type { PrunedTable, RetentionQueries } from './store.ts'

/**
 * Retention's deletions, a batch at a time: the oldest rows first, through the index on their age,
 * each batch small enough that the writes queued behind it wait for it no more than for any other unit.
 */
export function retentionQueries({ tables: t, run }: SqlEngine): RetentionQueries {
  const statements: Record<PrunedTable, (before: string, limit: number) => ReturnType<typeof sql>> = {
    messages: (before, limit) =>
      sql`delete from ${t.messages} where (${t.messages.integrationId}, ${t.messages.id}) in (
            select ${t.messages.integrationId}, ${t.messages.id} from ${t.messages}
            where ${t.messages.createdAt} < ${before} order by ${t.messages.createdAt} limit ${limit})`,
    events: (before, limit) =>
      sql`delete from ${t.events} where (${t.events.integrationId}, ${t.events.id}) in (
            select ${t.events.integrationId}, ${t.events.id} from ${t.events}
            where ${t.events.createdAt} < ${before} order by ${t.events.createdAt} limit ${limit})`,
    botEvents: (before, limit) =>
      sql`delete from ${t.botEvents} where ${t.botEvents.id} in (
            select ${t.botEvents.id} from ${t.botEvents} where ${t.botEvents.createdAt} < ${before} order by ${t.botEvents.createdAt} limit ${limit})`,
    botLogs: (before, limit) =>
      sql`delete from ${t.botLogs} where ${t.botLogs.id} in (
            select ${t.botLogs.id} from ${t.botLogs} where ${t.botLogs.timestamp} < ${before} order by ${t.botLogs.timestamp} limit ${limit})`,
  }
  return { prune: (table, before, limit) => run(statements[table](before, limit)) }
}
