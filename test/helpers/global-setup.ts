import { Redis } from 'ioredis'
import pg from 'pg'
import { TEST_REDIS_URL } from './redis.ts'

/**
 * With TEST_DATABASE_URL=postgres://…, the run needs PostgreSQL, and Redis for the `*.pg.test.ts` files
 * of several instances: if either does not answer, the whole run fails at once, loudly, rather than each
 * test on its own (and never skips).
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
  await requireRedis(TEST_REDIS_URL)
  return () => dropOrphanSchemas(url)
}

async function requireRedis(url: string) {
  const redis = new Redis(url, { lazyConnect: true, connectTimeout: 5000, maxRetriesPerRequest: 0, retryStrategy: () => null })
  try {
    await redis.connect()
    await redis.ping()
  } catch (error) {
    throw new Error(`TEST_REDIS_URL=${url}: Redis does not answer (${String(error)}); the PostgreSQL run needs it`)
  } finally {
    redis.disconnect()
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * At the end of the run: the schemas of test apps whose process is gone without dropping them (a
 * child server killed by its test), named test_<pid>_… by openTestStore.
 */
async function dropOrphanSchemas(url: string) {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const { rows } = await client.query<{ name: string }>(`select nspname as name from pg_namespace where nspname ~ '^test_[0-9]+_'`)
    for (const { name } of rows) {
      const pid = Number(/^test_(\d+)_/.exec(name)?.[1])
      if (!alive(pid)) await client.query(`drop schema if exists "${name}" cascade`)
    }
  } finally {
    await client.end()
  }
}
