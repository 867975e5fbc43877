import type { BotStateRow, StateExpiry } from '../../../db/schema.ts'

/*
 * A named state may expire (the bot API's `expiry`, Botpress' "expires if it is idle for the
 * configured value"): it is gone once left unwritten through the bot API for `expiry` ms. An expired
 * state is never read (here, for the bot API and `event.state` alike); it leaves the row at the next
 * bot API write of its scope, or at the sweep (sweepExpiredStates). A handler's or a webhook answer's
 * whole-scope write keeps the expiries; a name it writes after its expiry is a new state, with none.
 */

type Expiries = Record<string, StateExpiry>

/** Whether the named state of `row` has expired by `at` (ISO 8601). */
export function hasExpired(row: Pick<BotStateRow, 'expiries' | 'updatedAt'>, name: string, at: string): boolean {
  const expiry = row.expiries?.[name]
  // Written (whole, by a handler) after it had expired: a new state.
  return expiry !== undefined && expiry.expiresAt <= at && row.updatedAt < expiry.expiresAt
}

/** The row's value without its expired states. */
export function liveValue(row: Pick<BotStateRow, 'value' | 'expiries' | 'updatedAt'>, at: string): Record<string, unknown> {
  if (!row.expiries) return row.value
  return Object.fromEntries(Object.entries(row.value).filter(([name]) => !hasExpired(row, name, at)))
}

/**
 * The expiries still to come of the states of `value`: a past one goes, whether its state went with
 * it or was written anew since.
 */
export function liveExpiries(row: Pick<BotStateRow, 'expiries'>, value: Record<string, unknown>, at: string): Expiries {
  const kept: Expiries = {}
  for (const [name, expiry] of Object.entries(row.expiries ?? {})) {
    if (Object.hasOwn(value, name) && expiry.expiresAt > at) kept[name] = expiry
  }
  return kept
}

/** A named state written at `at`: `expiry` given sets (null removes) its expiry, else the one it had starts again. */
export function expiryAfterWrite(current: StateExpiry | undefined, expiry: number | null | undefined, at: Date): StateExpiry | undefined {
  const ms = expiry === undefined ? current?.expiry : (expiry ?? undefined)
  return ms === undefined ? undefined : { expiry: ms, expiresAt: new Date(at.getTime() + ms).toISOString() }
}

/** The columns a row stores its expiries in: the map (null when empty) and the first of them. */
export function expiryColumns(expiries: Expiries): Pick<BotStateRow, 'expiries' | 'expiresAt'> {
  const dates = Object.values(expiries).map((e) => e.expiresAt)
  if (dates.length === 0) return { expiries: null, expiresAt: null }
  // ISO 8601 strings sort in time order.
  return { expiries, expiresAt: dates.sort()[0] ?? null }
}
