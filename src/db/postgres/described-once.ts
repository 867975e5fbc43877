import pg from 'pg'

/*
 * A prepared statement's result columns, described once per process rather than on every execution.
 * node-postgres asks the server to describe every execution of a named statement (Describe), and
 * then, for every answer, makes a type parser per column and an object of the column names that
 * rows as arrays never use: a tenth of a page's CPU in a V8 profile of a list load
 * (docs/internals/performance.md). A named statement's columns are fixed by its text, so its first
 * execution is described as usual and its column parsers kept; later executions are sent without
 * Describe, their rows made with the kept parsers.
 */

type Parser = (raw: string) => unknown

/** The parts of node-postgres' Query this one works with (lib/query.js: not in its types). */
interface QueryInternals {
  name?: string
  portal: string
  rows?: number
  binary?: boolean
  values?: unknown[]
  callback?: (error: Error | null, result?: unknown) => void
  _rowMode?: string
  _result: { rows: unknown[]; _types?: { getTypeParser(oid: number, format: string): Parser } }
  prepare(connection: Connection): void
  handleRowDescription(message: { fields: { dataTypeID: number; format?: string }[] }): void
  handleDataRow(message: { fields: (string | null)[] }): void
  handleReadyForQuery(connection: Connection): void
  handleError(error: Error, connection: Connection): void
}

interface Connection {
  parsedStatements: Record<string, string>
  submittedNamedStatements: Record<string, string>
  parse(config: { text: string; name?: string; types?: unknown }): void
  bind(config: { portal: string; statement?: string; values?: unknown[]; binary?: boolean; valueMapper: unknown }): void
  execute(config: { portal: string; rows?: number }): void
  sync(): void
  close(config: { type: string; name?: string }): void
}

/** Column parsers by statement name, for the statements whose rows come as arrays; none: no rows. */
const described = new Map<string, Parser[] | null>()

/** As many names as named-statements.ts gives out at most, and then some: past it, start again. */
const maxDescribed = 4096

const PgQuery = pg.Query as unknown as new (config: object, values?: unknown[]) => QueryInternals
const { prepareValue } = (pg as unknown as { utils: { prepareValue: unknown } }).utils

class DescribedOnceQuery extends PgQuery {
  /** The kept parsers, when this execution is sent without Describe. */
  private readonly parsers: Parser[] | null | undefined
  private heardRows = false

  constructor(config: { name: string; rowMode?: string }, values: unknown[]) {
    super(config, values)
    this.parsers = described.get(config.name)
  }

  override prepare(connection: Connection): void {
    if (this.parsers === undefined) return super.prepare(connection)
    const name = this.name as string
    if (connection.parsedStatements[name] === undefined && connection.submittedNamedStatements[name] === undefined) {
      const { text, types } = this as unknown as { text: string; types?: unknown }
      connection.parse({ text, name, types })
      connection.submittedNamedStatements[name] = text
    }
    try {
      connection.bind({ portal: this.portal, statement: name, values: this.values, binary: this.binary, valueMapper: prepareValue })
    } catch (error) {
      connection.close({ type: 'S', name })
      connection.sync()
      this.handleError(error as Error, connection)
      return
    }
    connection.execute({ portal: this.portal })
    connection.sync()
  }

  override handleRowDescription(message: Parameters<QueryInternals['handleRowDescription']>[0]): void {
    this.heardRows = true
    super.handleRowDescription(message)
    const types = this._result._types
    // Only rows as arrays are made from the kept parsers (describedOnce).
    if (this._rowMode !== 'array' || !types || described.size >= maxDescribed) return
    described.set(
      this.name as string,
      message.fields.map(({ dataTypeID, format }) => types.getTypeParser(dataTypeID, format || 'text')),
    )
  }

  override handleDataRow(message: { fields: (string | null)[] }): void {
    const parsers = this.parsers
    if (!parsers) return super.handleDataRow(message)
    const raw = message.fields
    const row = new Array(raw.length)
    for (let i = 0; i < raw.length; i++) {
      const value = raw[i] as string | null
      row[i] = value === null ? null : (parsers[i] as Parser)(value)
    }
    this._result.rows.push(row)
  }

  override handleReadyForQuery(connection: Connection): void {
    // Described, and no row description came: the statement returns no rows.
    if (this.parsers === undefined && !this.heardRows && described.size < maxDescribed) described.set(this.name as string, null)
    super.handleReadyForQuery(connection)
  }
}

/**
 * The query node-postgres is to send for a named config whose rows come as arrays (or that returns
 * none): described on its name's first execution only. Undefined for any other config, sent as it is.
 */
export function describedOnce(
  config: { name?: string; rowMode?: string; rows?: number },
  values: unknown[],
): DescribedOnceQuery | undefined {
  if (config.name === undefined || config.rows !== undefined) return undefined
  const parsers = described.get(config.name)
  // Rows as objects need the column names of a description; a statement without rows needs none.
  if (config.rowMode !== 'array' && parsers !== null && parsers !== undefined) return undefined
  return new DescribedOnceQuery(config as { name: string }, values)
}
