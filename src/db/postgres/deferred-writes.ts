/*
 * What a unit of work's connection sends, in fewer statements and round trips (the statements
 * `sendingOf` gives for one go out together: the store's connections pipeline them, store.ts):
 *
 * - BEGIN waits until the unit writes, and goes with its first write. The plain reads before its
 *   first write (a SELECT that locks nothing) run on their own: at READ COMMITTED, the store's
 *   isolation (PostgreSQL's default), each
 *   statement of a transaction sees what was committed when it started, as a statement on its own
 *   does. A unit whose writes all go out as one statement at its end sends neither BEGIN nor COMMIT:
 *   that statement is atomic and durable by itself once answered. A unit that writes nothing sends
 *   neither either.
 * - Inserts that nothing reads back are held until the unit's next statement:
 *   - an INSERT into none of the tables they write: they go with it, as data-modifying CTEs of the
 *     same statement (PostgreSQL runs them all, and checks foreign keys once the statement ends);
 *   - anything else (a read, which must see them; an update, a delete; COMMIT): they go first, as
 *     one statement of CTEs, with the next statement behind them in the same round trip (both in the
 *     unit's transaction: if they fail, it is aborted and the next statement fails too);
 *   - ROLLBACK: they are dropped, never sent;
 *   - an insert that would take the held ones past `maxHeldValues` parameters is not held: they go
 *     first, as one statement, then it (PostgreSQL takes at most 65,535 parameters per statement);
 *   - held inserts of one text (one row each into one table, as a run of settlements holds a log
 *     line, a message and a bot event per attempt) go as one insert of all their rows: PostgreSQL
 *     plans and starts each CTE of a statement apart, and a run of 136 attempts held 407 of them
 *     (8.8 ms to plan the statement, more to start it; docs/internals/performance.md).
 * A held insert that fails (a constraint, a deleted parent) fails the statement it went with, so the
 * unit fails as it would have a statement earlier: its effects and answer come only after its commit.
 */

export interface Held {
  text: string
  values: unknown[]
  /** The table it writes, as its text quotes it (`"messages"`). */
  table: string
}

interface Unit {
  /** Whether BEGIN was sent. */
  begun: boolean
  held: Held[]
  /** How many parameters the held inserts have in all. */
  heldValues: number
}

/**
 * The most parameters the held inserts sent as one statement have: PostgreSQL takes at most 65,535
 * per statement, and a unit may hold more (a run of settlements whose answers hold many messages):
 * past this, they go out in several statements.
 */
export const maxHeldValues = 30_000

export interface Statement {
  text: string
  values: unknown[]
}

/** The config of a statement that has none of its own (a unit's BEGIN, COMMIT, held inserts). */
export const bare = {}

/** What a statement answered without a row answers (node-postgres' result), and one answered with nothing sent. */
export const noRows = { command: null, rowCount: null, rows: [], fields: [] }

/** The units under way, by their connection. */
const units = new WeakMap<object, Unit>()

const insertInto = /^insert into ("[^"]+")/
/** A read that takes no lock (a row lock, an advisory lock) and so may run before BEGIN. */
const plainRead = /^select\b/i
const takesLock = /\bfor (update|share|no key update|key share)\b|pg_advisory/i

/** Holds an insert of the unit on `client` (its connection) until the unit's next statement: false if `text` is not one it holds. */
export function holdInsert(client: object, text: string, values: unknown[]): boolean {
  const unit = units.get(client)
  const table = insertInto.exec(text)?.[1]
  if (!unit || table === undefined || unit.heldValues + values.length > maxHeldValues) return false
  unit.held.push({ text, values, table })
  unit.heldValues += values.length
  return true
}

/**
 * What `client` sends for the statement `text`, in order (the last one's answer is the statement's);
 * none: it is answered at once, with nothing sent (a BEGIN not yet due, a COMMIT or ROLLBACK of nothing).
 * Undefined: the statement is sent as it is.
 */
export function sendingOf(client: object, text: string, values: unknown[]): Statement[] | undefined {
  if (text === 'begin') {
    units.set(client, { begun: false, held: [], heldValues: 0 })
    return []
  }
  const unit = units.get(client)
  if (!unit) return undefined
  const { held, heldValues } = unit
  if (/^rollback\b/i.test(text)) {
    units.delete(client)
    return unit.begun ? [{ text, values }] : []
  }
  if (/^commit\b/i.test(text)) {
    units.delete(client)
    if (!unit.begun) return held.length === 0 ? [] : [alone(held)]
    return held.length === 0 ? [{ text, values }] : [alone(held), { text, values }]
  }
  if (runsAlone(unit, text)) return undefined
  const sending: Statement[] = unit.begun ? [] : [{ text: 'begin', values: [] }]
  unit.begun = true
  unit.held = []
  unit.heldValues = 0
  if (held.length === 0) return [...sending, { text, values }]
  const fits = heldValues + values.length <= maxHeldValues
  if (fits && insertInto.test(text) && !held.some((h) => text.includes(h.table))) return [...sending, joined(merged(held), { text, values })]
  return [...sending, alone(held), { text, values }]
}

/** A plain read before the unit's first write: outside its transaction, as anywhere else. */
const runsAlone = (unit: Unit, text: string): boolean =>
  !unit.begun && unit.held.length === 0 && plainRead.test(text) && !takesLock.test(text)

/** Whether `text`, sent by the unit on `client`, is a read that runs on its own (before the unit's first write). */
export const readsAlone = (client: object, text: string): boolean => {
  const unit = units.get(client)
  return unit !== undefined && runsAlone(unit, text)
}

/**
 * The inserts held by the unit on `client` when `text` is its COMMIT and it never began: its only
 * writes, which commit by themselves as one statement (taken, and the unit ended); else undefined.
 */
export function heldAtCommit(client: object, text: string): readonly Held[] | undefined {
  const unit = units.get(client)
  if (!unit || unit.begun || unit.held.length === 0 || !/^commit\b/i.test(text)) return undefined
  units.delete(client)
  return unit.held
}

/** Whether a unit is under way on `client` (from its BEGIN to its COMMIT or ROLLBACK). */
export const inUnit = (client: object): boolean => units.has(client)

/** Held inserts, of one unit or of several, as one statement. */
export const heldStatement = (held: readonly Held[]): Statement => alone(held)

/** The held inserts as one statement of their own: the last one under the others' CTEs. */
function alone(held: readonly Held[]): Statement {
  const inserts = merged(held)
  return joined(inserts.slice(0, -1), inserts.at(-1) as Held)
}

/** An insert of one row that ends its text (no ON CONFLICT, no RETURNING): its values' tuple. */
const oneRow = /^(insert into "[^"]+" \([^()]*\) values )(\((?:[^()]|\([^()]*\))*\))$/

/** `held` with the inserts of one text (of one row each) made one insert of all their rows, where its first was. */
function merged(held: readonly Held[]): Held[] {
  const byText = new Map<string, Held[]>()
  for (const h of held) {
    const same = byText.get(h.text)
    if (same) same.push(h)
    else byText.set(h.text, [h])
  }
  if (byText.size === held.length) return [...held]
  const inserts: Held[] = []
  for (const [text, same] of byText) {
    const row = same.length > 1 ? oneRow.exec(text) : null
    if (!row) {
      inserts.push(...same)
      continue
    }
    const [, head, tuple] = row as unknown as [string, string, string]
    const width = (same[0] as Held).values.length
    const tuples = same.map((_, i) => renumbered(tuple, i * width))
    inserts.push({ text: head + tuples.join(', '), values: same.flatMap((h) => h.values), table: (same[0] as Held).table })
  }
  return inserts
}

/** One statement: `held` as CTEs, then `main`, its parameters numbered after theirs. */
function joined(held: readonly Held[], main: Statement): Statement {
  if (held.length === 0) return { text: main.text, values: main.values }
  const values: unknown[] = []
  const parts: string[] = []
  held.forEach((h, i) => {
    parts.push(`confab_held_${i} as (${renumbered(h.text, values.length)})`)
    values.push(...h.values)
  })
  const text = `with ${parts.join(', ')} ${renumbered(main.text, values.length)}`
  values.push(...main.values)
  return { text, values }
}

/**
 * Texts split at their parameters (`$n`), by text: renumbering one then joins its pieces, where a
 * regular expression over the text on every send was a few percent of a createMessage's CPU.
 * Forgotten all at once past `maxSplit` texts (a unit's texts are few; a list's vary with its length).
 */
const splitTexts = new Map<string, (string | number)[]>()
const maxSplit = 1024

function splitAtParameters(text: string): (string | number)[] {
  let pieces = splitTexts.get(text)
  if (!pieces) {
    if (splitTexts.size >= maxSplit) splitTexts.clear()
    // Odd indexes are the parameters' numbers, even ones the text between them.
    pieces = text.split(/\$(\d+)/).map((piece, i) => (i % 2 === 1 ? Number(piece) : piece))
    splitTexts.set(text, pieces)
  }
  return pieces
}

/** `text` with each parameter `$n` made `$(n + offset)`. */
function renumbered(text: string, offset: number): string {
  if (offset === 0) return text
  const pieces = splitAtParameters(text)
  let out = pieces[0] as string
  for (let i = 1; i < pieces.length; i += 2) out += `$${(pieces[i] as number) + offset}${pieces[i + 1] as string}`
  return out
}
