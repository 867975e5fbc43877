import type { StatementKind } from '../query.ts'
import { isDatabaseUnavailable } from '../unavailable.ts'

/*
 * A unit of work as a plan of typed statements, and when each statement leaves for the database:
 * the rules, with their reasons, are docs/internals/storage.md's ("How a unit runs on each engine").
 * The shape layer knows what each statement is (src/db/query.ts); the executor sends what the plan
 * gives it. Nothing here reads SQL text to decide anything.
 */

/** SQL text and its parameters ($1, $2…). */
export interface Sql {
  text: string
  values: unknown[]
}

/** An insert, as it may be joined with others: its table and, for a plain insert of one row, its text cut before its row's tuple. */
export interface InsertShape {
  table: string
  row?: {
    /** `insert into "t" (…) values ` */
    head: string
    /** `($1, $2, …)` */
    tuple: string
  }
}

/** A statement of a unit's plan. */
export interface Planned<S extends Sql = Sql> {
  kind: StatementKind
  /** What the engine sends for it. */
  statement: S
  /** Set for an insert (kind `insert`): how it joins others. */
  insert?: InsertShape
}

/** An insert held by a unit. */
export interface Held {
  statement: Sql
  insert: InsertShape | undefined
  /** Where the work made it (the domain's call), told by the error of the statement it is sent with. */
  origin?: { stack?: string }
}

/**
 * The stack of the call that makes a held insert, captured as it is held: its frames are taken
 * then (about a microsecond) and made text only if a failure tells them.
 */
function originOf(): { stack?: string } {
  const origin: { stack?: string } = {}
  Error.captureStackTrace(origin, UnitPlan.prototype.step)
  return origin
}

/**
 * `error`, from a statement that carried held inserts, with the stack of the call that made the one
 * it is about (the table a constraint names, else the first): a held insert's failure surfaces at a
 * later statement or at the commit, and this names the domain's call that made it. Told once.
 */
export function blamed(error: unknown, held: readonly Held[]): unknown {
  if (!(error instanceof Error) || held.length === 0 || told.has(error)) return error
  const table = (error as { table?: unknown }).table
  const culprit = held.find((h) => h.insert?.table === table) ?? held[0]
  const frames = culprit?.origin?.stack?.split('\n').slice(1).join('\n')
  if (frames) {
    told.add(error)
    error.stack = `${error.stack ?? String(error)}\n    -- the failing insert was made (held until this statement) at:\n${frames}`
  }
  return error
}

const told = new WeakSet<Error>()

/**
 * The most parameters held inserts sent as one statement have (PostgreSQL takes at most 65,535 per
 * statement): past this, they go out in several statements.
 */
const maxHeldValues = 30_000

/** What a unit does with a statement it is given. */
type Step<S extends Sql> =
  /** Held: answered at once with no rows. */
  | { go: 'hold' }
  /** A plain read before the unit's first write: sent as any read is. */
  | { go: 'read' }
  /** Sent on the unit's connection, in order, together; the last one's answer is the statement's. `held`: the held inserts that ride with it. */
  | { go: 'unit'; sending: (S | Sql)[]; held: readonly Held[] }

/** How a unit ends. */
type Ending =
  /** It wrote nothing: nothing to send. */
  | { go: 'nothing' }
  /** Only held inserts: committed as one statement, with those of the units ending with it. */
  | { go: 'group'; held: readonly Held[] }
  /** On its connection (its held inserts, then COMMIT). */
  | { go: 'unit'; sending: Sql[]; held: readonly Held[] }

const begin: Sql = { text: 'begin', values: [] }
const commit: Sql = { text: 'commit', values: [] }
const rollback: Sql = { text: 'rollback', values: [] }

/** The state of one unit of work under way: what it holds, whether its transaction began. */
export class UnitPlan<S extends Sql = Sql> {
  private began = false
  private held: Held[] = []
  private heldValues = 0

  step(planned: Planned<S>): Step<S> {
    const { kind, statement, insert } = planned
    if (kind === 'insert' && this.heldValues + statement.values.length <= maxHeldValues) {
      this.held.push({ statement, insert, origin: originOf() })
      this.heldValues += statement.values.length
      return { go: 'hold' }
    }
    if (kind === 'read' && !this.began && this.held.length === 0) return { go: 'read' }
    const sending: (S | Sql)[] = this.began ? [] : [begin]
    this.began = true
    const held = this.take()
    if (held.length === 0) return { go: 'unit', sending: [...sending, statement], held }
    const fits = valuesOf(held) + statement.values.length <= maxHeldValues
    if (fits && kind === 'insert' && insert && !held.some((h) => h.insert?.table === insert.table)) {
      // One statement: the held inserts as CTEs, then this one (its answer is the statement's);
      // PostgreSQL runs every CTE, and checks foreign keys once the statement ends.
      return { go: 'unit', sending: [...sending, joined(merged(held), statement)], held }
    }
    return { go: 'unit', sending: [...sending, heldStatement(held), statement], held }
  }

  /** How the unit commits. */
  end(): Ending {
    const held = this.take()
    if (!this.began) return held.length === 0 ? { go: 'nothing' } : { go: 'group', held }
    return { go: 'unit', sending: held.length === 0 ? [commit] : [heldStatement(held), commit], held }
  }

  /** What rolls the unit back: its held inserts are dropped, never sent. */
  abort(): Sql[] {
    this.take()
    return this.began ? [rollback] : []
  }

  private take(): Held[] {
    const held = this.held
    this.held = []
    this.heldValues = 0
    return held
  }
}

/** How many parameters held inserts have. */
function valuesOf(held: readonly Held[]): number {
  let values = 0
  for (const h of held) values += h.statement.values.length
  return values
}

/** Held inserts (of one unit or several) as one statement: the last one under the others' CTEs. */
function heldStatement(held: readonly Held[]): Sql {
  const inserts = merged(held)
  return joined(inserts.slice(0, -1), (inserts.at(-1) as Held).statement)
}

/**
 * `held` with the one-row inserts of one text made one insert of all their rows, where the first was:
 * PostgreSQL plans and starts each CTE of a statement apart, and a run of settlements holds hundreds.
 */
function merged(held: readonly Held[]): Held[] {
  const byText = new Map<string, Held[]>()
  for (const h of held) {
    const same = byText.get(h.statement.text)
    if (same) same.push(h)
    else byText.set(h.statement.text, [h])
  }
  if (byText.size === held.length) return [...held]
  const inserts: Held[] = []
  for (const same of byText.values()) {
    const shape = (same[0] as Held).insert?.row
    if (same.length === 1 || !shape) {
      inserts.push(...same)
      continue
    }
    const width = (same[0] as Held).statement.values.length
    const tuples = same.map((_, i) => renumbered(shape.tuple, i * width))
    inserts.push({ statement: { text: shape.head + tuples.join(', '), values: same.flatMap((h) => h.statement.values) }, insert: undefined })
  }
  return inserts
}

/** One statement: `held` as CTEs, then `main`, its parameters numbered after theirs. */
function joined(held: readonly Held[], main: Sql): Sql {
  if (held.length === 0) return main
  const values: unknown[] = []
  const parts: string[] = []
  held.forEach((h, i) => {
    parts.push(`confab_held_${i} as (${renumbered(h.statement.text, values.length)})`)
    values.push(...h.statement.values)
  })
  const text = `with ${parts.join(', ')} ${renumbered(main.text, values.length)}`
  values.push(...main.values)
  return { text, values }
}

/**
 * Texts cut at their parameters (`$n`), by text: odd indexes are the parameters' numbers. Made once
 * per text (a unit's texts are few), forgotten all at once past `maxSplit`.
 */
const splitTexts = new Map<string, (string | number)[]>()
const maxSplit = 1024

function splitAtParameters(text: string): (string | number)[] {
  let pieces = splitTexts.get(text)
  if (pieces) return pieces
  pieces = []
  let from = 0
  for (let i = 0; i < text.length; i++) {
    if (text[i] !== '$') continue
    let end = i + 1
    while (end < text.length && text.charCodeAt(end) >= 48 && text.charCodeAt(end) <= 57) end++
    if (end === i + 1) continue
    pieces.push(text.slice(from, i), Number(text.slice(i + 1, end)))
    from = end
    i = end - 1
  }
  pieces.push(text.slice(from))
  if (splitTexts.size >= maxSplit) splitTexts.clear()
  splitTexts.set(text, pieces)
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

/*
 * Commits grouped across requests: the units of held inserts only (a createMessage: its message, bot
 * event and delivery) that end in one turn, or while the group before is written, are one statement,
 * one commit and WAL flush, one round trip. One group at a time: two whose rows share the outbox's
 * heads in different orders could deadlock, and while one is written the next grows.
 */

interface Waiting {
  held: readonly Held[]
  values: number
  resolve(): void
  reject(error: unknown): void
}

export class CommitGroups {
  private waiting: Waiting[] = []
  private writing = false
  private scheduled = false

  /** `send` commits one statement by itself (outside any transaction). */
  constructor(private readonly send: (statement: Sql) => Promise<unknown>) {}

  /** Commits a unit's held inserts, with those of the units ending with it. */
  commit(held: readonly Held[]): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ held, values: valuesOf(held), resolve, reject })
      this.schedule()
    })
  }

  private schedule(): void {
    if (this.writing || this.scheduled) return
    this.scheduled = true
    // The end of this turn: the units that end in it (their reads answered together) join the group.
    setImmediate(() => {
      this.scheduled = false
      void this.writeNext()
    })
  }

  private async writeNext(): Promise<void> {
    const group = this.nextGroup()
    if (group.length === 0) return
    this.writing = true
    try {
      if (group.length === 1) await this.writeAlone(group[0] as Waiting)
      else {
        let failure: { error: unknown } | undefined
        try {
          await this.send(heldStatement(group.flatMap(({ held }) => held)))
        } catch (error) {
          failure = { error }
        }
        // One that failed is written again unit by unit, each to its own outcome (a row's foreign key
        // broken by a delete meanwhile), but not when its connection failed: it may have committed.
        if (!failure) for (const unit of group) unit.resolve()
        else if (isDatabaseUnavailable(failure.error)) for (const unit of group) unit.reject(failure.error)
        else await Promise.all(group.map((unit) => this.writeAlone(unit)))
      }
    } finally {
      this.writing = false
      if (this.waiting.length > 0) this.schedule()
    }
  }

  private writeAlone(unit: Waiting): Promise<void> {
    return this.send(heldStatement(unit.held)).then(unit.resolve, (error: unknown) => unit.reject(blamed(error, unit.held)))
  }

  /** The units waiting, in order, as many as one statement's parameters allow (at least one). */
  private nextGroup(): Waiting[] {
    let values = 0
    let count = 0
    for (const unit of this.waiting) {
      if (count > 0 && values + unit.values > maxHeldValues) break
      values += unit.values
      count++
    }
    return this.waiting.splice(0, count)
  }
}
