import pg from 'pg'

/**
 * With TEST_DATABASE_URL=postgres://…, the run needs PostgreSQL: if it does not answer, the whole
 * run fails at once, loudly, rather than each test on its own (and never skips).
 */
export default async function setup() {
  const url = process.env.TEST_DATABASE_URL
  if (!url) return
  if (!/^postgres(ql)?:\/\//i.test(url)) throw new Error(`TEST_DATABASE_URL must be a postgres:// URL, got "${url}"`)
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 })
  try {
    await client.connect()
    await client.query('select 1')
  } catch (error) {
    throw new Error(`TEST_DATABASE_URL=${url}: PostgreSQL does not answer (${String(error)}); the run needs it`)
  } finally {
    await client.end().catch(() => undefined)
  }
}
