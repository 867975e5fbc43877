import pg from 'pg'

/** The suite's PostgreSQL server (TEST_DATABASE_URL, 127.0.0.1:5432 by default): a *.pg.test.ts file fails if it does not answer. */
export const POSTGRES_URL = process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres'

/** The rows of one statement, on a connection of its own to `url`. */
export async function queryOnce<T extends pg.QueryResultRow = Record<string, unknown>>(url: string, statement: string, params: unknown[] = []) {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query<T>(statement, params)).rows
  } finally {
    await client.end()
  }
}

/**
 * A database of a test file's own on the suite's server, for what needs a whole database (several
 * instances, `npm start`, a copy): `<prefix>_<pid>_<time>`, made by `create()`, dropped by `drop()`.
 */
export function ownDatabase(prefix: string) {
  const name = `${prefix}_${process.pid}_${Date.now()}`
  const url = new URL(POSTGRES_URL)
  url.pathname = `/${name}`
  return {
    name,
    url: url.toString(),
    create: () => queryOnce(POSTGRES_URL, `create database "${name}"`),
    drop: () => queryOnce(POSTGRES_URL, `drop database if exists "${name}" with (force)`),
  }
}
