import { and, eq } from 'drizzle-orm'
import { bots, type BotRow } from '../db/schema.ts'
import type { AdminContext } from './context.ts'
import { notFound } from './errors.ts'
import { type Cursored, keyset, type PageWindow, type SortDirection, withCursors } from './paging.ts'

export type BotSortField = 'createdAt' | 'updatedAt'

export interface BotSort {
  field: BotSortField
  direction: SortDirection
}

export function listBots({
  ctx,
  sort,
  window,
}: {
  ctx: AdminContext
  sort: BotSort
  window: PageWindow
}): Cursored<BotRow>[] {
  const tag = `bots:${sort.field}:${sort.direction}`
  const column = sort.field === 'createdAt' ? bots.createdAt : bots.updatedAt
  const page = keyset(tag, [column, bots.id], window, sort.direction)
  const rows = ctx.db
    .select()
    .from(bots)
    .where(and(eq(bots.workspaceId, ctx.workspaceId), page.where))
    .orderBy(...page.orderBy)
    .limit(window.limit)
    .all()
  return withCursors(tag, rows, (b) => [b[sort.field], b.id])
}

export function getBot({ ctx, id }: { ctx: AdminContext; id: string }): BotRow {
  const row = ctx.db
    .select()
    .from(bots)
    .where(and(eq(bots.workspaceId, ctx.workspaceId), eq(bots.id, id)))
    .get()
  if (!row) throw notFound('Bot', id)
  return row
}
