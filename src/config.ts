import { availableParallelism } from 'node:os'
import proxyaddr from 'proxy-addr'

export interface BootstrapValues {
  workspaceId?: string
  adminToken?: string
  webhookId?: string
  encryptionKey?: string
}

export interface Config {
  port: number
  host: string
  databaseUrl: string
  /** DATABASE_POOL_SIZE: PostgreSQL connections per instance. */
  poolSize: number | undefined
  /** READ_REPLICAS: worker threads that serve reads beside the main thread (SQLite). */
  readReplicas: number
  /** REDIS_URL: live signals across instances. */
  redisUrl: string | undefined
  logLevel: string
  production: boolean
  /** Browser origins allowed to call the API cross-origin: CORS_ORIGINS, comma-separated, or `*`. */
  corsOrigins: readonly string[] | '*'
  /**
   * RATE_LIMITS=off: every rate limit and every per-key/per-address cap off at once (benchmarks, load
   * tests, trusted networks); size limits stay.
   */
  rateLimitsOff: boolean
  /** TRUST_PROXY: the proxies whose forwarded headers are believed (addresses, CIDR ranges, `loopback`…); none by default. */
  trustProxy: readonly string[]
  /** PUBLIC_URL: the origin (and base path) every URL Confab hands out starts with; from each request when unset. */
  publicUrl: string | undefined
  /** BOT_URLS_PRIVATE: `allow` (default) or `deny` bot urls on loopback/private networks; metadata addresses are always refused. */
  botUrlsPrivate: 'allow' | 'deny'
  bootstrap: BootstrapValues
  /** CONFAB_BOT_RETRY_SCHEDULE: seconds before each delivery attempt; the Standard Webhooks schedule when unset. */
  botRetrySchedule: number[] | undefined
  /** CONFAB_BOT_MODULE: an ES module whose default export handles the events of bots without url. */
  botModule: string | undefined
  /** CONFAB_BOT_LEASE_SECONDS: how long an instance holds a bot delivery it claimed (PostgreSQL). */
  botLeaseMs: number | undefined
}

export class ConfigError extends Error {}

function parsePort(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 3000
  const port = Number(raw)
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError(`PORT must be an integer from 0 to 65535, got "${raw}"`)
  }
  return port
}

function parseRateLimits(raw: string | undefined): boolean {
  if (raw === undefined || raw === 'on') return false
  if (raw === 'off') return true
  throw new ConfigError(`RATE_LIMITS must be "on" or "off", got "${raw}"`)
}

function parseBotUrlsPrivate(raw: string | undefined): 'allow' | 'deny' {
  if (raw === undefined || raw === 'allow' || raw === 'deny') return raw ?? 'allow'
  throw new ConfigError(`BOT_URLS_PRIVATE must be "allow" or "deny", got "${raw}"`)
}

function parseTrustProxy(raw: string | undefined): readonly string[] {
  const list = (raw ?? '').split(',').map((entry) => entry.trim()).filter((entry) => entry !== '')
  try {
    if (list.length > 0) proxyaddr.compile(list)
  } catch (error) {
    throw new ConfigError(`TRUST_PROXY must be comma-separated addresses, CIDR ranges or loopback/linklocal/uniquelocal: ${(error as Error).message}`)
  }
  return list
}

function parsePublicUrl(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined
  const url = URL.canParse(raw) ? new URL(raw) : undefined
  // `?` and `#` looked for in the text: an empty query or fragment leaves no trace in the parsed URL.
  if (!url || !['http:', 'https:'].includes(url.protocol) || url.username || url.password || /[?#]/.test(raw)) {
    throw new ConfigError(`PUBLIC_URL must be an absolute http(s) URL without credentials, query or fragment (e.g. https://chat.example.com or https://example.com/confab), got "${raw}"`)
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`
}

function parseOrigins(raw: string | undefined): readonly string[] | '*' {
  if (raw?.trim() === '*') return '*'
  return (raw ?? '')
    .split(',')
    .map((origin) => origin.trim().replace(/\/+$/, ''))
    .filter((origin) => origin !== '')
}

/** `CONFAB_BOT_RETRY_SCHEDULE`: comma-separated seconds before each attempt (`0,1,1`: three attempts). */
function parseSchedule(raw: string | undefined): number[] | undefined {
  if (raw === undefined) return undefined
  const schedule = raw.split(',').map((part) => Number(part.trim()))
  if (schedule.some((seconds) => !Number.isFinite(seconds) || seconds < 0) || raw.trim() === '') {
    throw new ConfigError(`CONFAB_BOT_RETRY_SCHEDULE must be comma-separated seconds (e.g. "0,5,300"), got "${raw}"`)
  }
  return schedule
}

function parsePoolSize(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined
  const size = Number(raw)
  if (!Number.isInteger(size) || size < 1 || size > 1000) {
    throw new ConfigError(`DATABASE_POOL_SIZE must be an integer from 1 to 1000, got "${raw}"`)
  }
  return size
}

/** One replica per core up to 4 (the main thread keeps the writes); none on one core, where a thread gains nothing. */
const defaultReadReplicas = () => {
  const cores = availableParallelism()
  return cores > 1 ? Math.min(cores, 4) : 0
}

function parseReadReplicas(raw: string | undefined): number {
  if (raw === undefined) return defaultReadReplicas()
  const count = Number(raw)
  if (!Number.isInteger(count) || count < 0 || count > 64) {
    throw new ConfigError(`READ_REPLICAS must be an integer from 0 to 64, got "${raw}"`)
  }
  return count
}

function parseSeconds(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined
  const seconds = Number(raw)
  if (!Number.isFinite(seconds) || seconds <= 0) throw new ConfigError(`${name} must be a number of seconds above 0, got "${raw}"`)
  return seconds * 1000
}

const nonEmpty = (value: string | undefined) => (value === undefined || value === '' ? undefined : value)

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return {
    port: parsePort(env.PORT),
    host: nonEmpty(env.HOST) ?? '127.0.0.1',
    databaseUrl: nonEmpty(env.DATABASE_URL) ?? './data/confab.db',
    poolSize: parsePoolSize(nonEmpty(env.DATABASE_POOL_SIZE)),
    readReplicas: parseReadReplicas(nonEmpty(env.READ_REPLICAS)),
    redisUrl: nonEmpty(env.REDIS_URL),
    logLevel: nonEmpty(env.LOG_LEVEL) ?? 'info',
    production: env.NODE_ENV === 'production',
    corsOrigins: parseOrigins(env.CORS_ORIGINS),
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    publicUrl: parsePublicUrl(nonEmpty(env.PUBLIC_URL)),
    rateLimitsOff: parseRateLimits(nonEmpty(env.RATE_LIMITS)),
    botRetrySchedule: parseSchedule(nonEmpty(env.CONFAB_BOT_RETRY_SCHEDULE)),
    botModule: nonEmpty(env.CONFAB_BOT_MODULE),
    botLeaseMs: parseSeconds('CONFAB_BOT_LEASE_SECONDS', nonEmpty(env.CONFAB_BOT_LEASE_SECONDS)),
    botUrlsPrivate: parseBotUrlsPrivate(nonEmpty(env.BOT_URLS_PRIVATE)),
    bootstrap: {
      workspaceId: nonEmpty(env.CONFAB_WORKSPACE_ID),
      adminToken: nonEmpty(env.CONFAB_ADMIN_TOKEN),
      webhookId: nonEmpty(env.CONFAB_WEBHOOK_ID),
      encryptionKey: nonEmpty(env.CONFAB_ENCRYPTION_KEY),
    },
  }
}
