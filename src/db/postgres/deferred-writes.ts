/*
 * Inserts a unit of work makes without reading their rows back, sent together with the unit's next
 * statement instead of each in a round trip of its own (node-postgres sends a connection's queries
 * one after the other, each waiting for the last one's answer). A unit's connection holds them
 * until the unit sends anything else:
 *  - an INSERT into none of the tables they write: they go with it, as data-modifying CTEs of the
 *    same statement (PostgreSQL runs them all, and checks foreign keys once the statement ends);
 *  - anything else (a read, which must see them; an update, a delete; COMMIT): they go first, as
 *    one statement of CTEs, and the next statement only once they succeeded;
 *  - ROLLBACK: they are dropped, never sent.
 * A held insert that fails (a constraint, a deleted parent) fails the statement it went with, so the
 * unit fails as it would have a statement earlier: its effects and answer come only after its commit.
 */

interface Held {
  text: string
  values: unknown[]
  /** The table it writes, as its text quotes it (`"messages"`). */
  table: string
}

const heldBy = new WeakMap<object, Held[]>()

const insertInto = /^insert into ("[^"]+")/

/** Holds an insert of the unit on `client` (its connection) until the unit's next statement: false if `text` is not one it holds. */
export function holdInsert(client: object, text: string, values: unknown[]): boolean {
  const table = insertInto.exec(text)?.[1]
  if (table === undefined) return false
  let held = heldBy.get(client)
  if (!held) heldBy.set(client, (held = []))
  held.push({ text, values, table })
  return true
}

export interface Sending {
  /** Sent first, alone: the held inserts that could not go with the statement. */
  before?: { text: string; values: unknown[] }
  /** The statement, with the held inserts it carries. */
  text: string
  values: unknown[]
}

/** The statement `text` as `client` sends it, with what the unit holds (see above); undefined when it holds nothing. */
export function withHeld(client: object, text: string, values: unknown[]): Sending | undefined {
  const held = heldBy.get(client)
  if (!held || held.length === 0) return undefined
  heldBy.delete(client)
  if (/^rollback\b/i.test(text)) return { text, values }
  if (insertInto.test(text) && !held.some((h) => text.includes(h.table))) return joined(held, { text, values })
  const last = held.pop() as Held
  return { before: joined(held, last), text, values }
}

/** One statement: `held` as CTEs, then `main`, its parameters numbered after theirs. */
function joined(held: readonly Held[], main: { text: string; values: unknown[] }): { text: string; values: unknown[] } {
  if (held.length === 0) return main
  const values: unknown[] = []
  const parts: string[] = []
  const renumbered = (text: string) => {
    const offset = values.length
    return offset === 0 ? text : text.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`)
  }
  held.forEach((h, i) => {
    parts.push(`confab_held_${i} as (${renumbered(h.text)})`)
    values.push(...h.values)
  })
  const text = `with ${parts.join(', ')} ${renumbered(main.text)}`
  values.push(...main.values)
  return { text, values }
}
