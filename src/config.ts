import { readFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import proxyaddr from 'proxy-addr'
import { estimatedEntropyBits } from './contracts/secret-strength.ts'

export interface BootstrapValues {
  workspaceId?: string
  adminToken?: string
  webhookId?: string
  encryptionKey?: string
}

export interface Config {
  port: number
  /** METRICS_PORT: Prometheus metrics on a listener of their own (on METRICS_HOST); none when unset. */
  metricsPort: number | undefined
  /** METRICS_HOST: the address the metrics listener binds; loopback (127.0.0.1) unless set, whatever HOST is. */
  metricsHost: string
  host: string
  databaseUrl: string
  /** DATABASE_POOL_SIZE: PostgreSQL connections per instance. */
  poolSize: number | undefined
  /** DATABASE_CONNECT_TIMEOUT_SECONDS: how long a request waits for a PostgreSQL connection before it is answered 503. */
  databaseConnectTimeoutMs: number | undefined
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
  /** Caps and timeouts (docs/reference/limits.md): each from its env var, `0` turns one off; RATE_LIMITS=off zeroes the per-key/per-address caps. */
  caps: ResourceLimits
  /** RATE_LIMIT_<NAME>=points/seconds (`0`: that one off): each rate limit's rule; see rateLimitDefaults and docs/reference/limits.md. */
  rateLimits: RateLimitRules
  /** TRUST_PROXY: the proxies whose forwarded headers are believed (addresses, CIDR ranges, `loopback`…); none by default. */
  trustProxy: readonly string[]
  /**
   * TRACE_PARENT_TRUST: whose W3C `traceparent` a request's trace continues (traces on): `off` (the
   * default: none, every request starts a trace of its own), `proxy` (a request whose connection comes
   * from a TRUST_PROXY proxy), `all` (any caller's).
   */
  traceParentTrust: TraceParentTrust
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
  /** RETENTION_DAYS: messages, events, bot events and bot logs older than this are pruned; 0 or unset: kept forever. */
  retentionDays: number
  /**
   * SHUTDOWN_DELAY_SECONDS: on SIGTERM/SIGINT, how long /readyz answers 503 while every other request is
   * still served, before the listener closes (a load balancer's time to take the instance out); 0 by default.
   */
  shutdownDelayMs: number
  /** GRAPHIQL=off: no GraphiQL page on the GraphQL endpoints (on by default). */
  graphiql: boolean
  /** NON_PARTICIPANT_STATUS: 404 (default) or 403, what a caller who is not a participant of an existing conversation is answered (domain/non-participant.ts). */
  nonParticipantStatus: NonParticipantStatus
}

export class ConfigError extends Error {}

/** NON_PARTICIPANT_STATUS: what a caller who is not a participant of an existing conversation is answered (domain/non-participant.ts). */
export type NonParticipantStatus = 403 | 404

export type TraceParentTrust = 'off' | 'proxy' | 'all'

/** Bounded resources (docs/reference/limits.md). A cap of 0 is no cap; a timeout of 0 is none. */
export interface ResourceLimits {
  /** HTTP_HEADERS_TIMEOUT_SECONDS: a request's headers must arrive within it (Node: 60 s). */
  headersTimeoutMs: number
  /** HTTP_REQUEST_TIMEOUT_SECONDS: a whole request (headers and body) must arrive within it (Node: 300 s); never cuts a response. */
  requestTimeoutMs: number
  /** HTTP_KEEP_ALIVE_TIMEOUT_SECONDS: an idle kept-alive connection is closed after it. */
  keepAliveTimeoutMs: number
  /** HTTP_MAX_CONNECTIONS: open connections of the server; more are refused (closed) at once. */
  maxConnections: number
  /** WS_SUBSCRIPTIONS_PER_SOCKET: operations under way on one GraphQL WebSocket. */
  subscriptionsPerSocket: number
  /** WS_SOCKETS_PER_USER: GraphQL WebSockets open for one user (the verified user its key names, whichever key or encoding). */
  socketsPerUser: number
  /** WS_SOCKETS_PER_ADDRESS: GraphQL WebSockets open from one client address. */
  socketsPerAddress: number
  /** SSE_STREAMS_PER_USER: event streams open for one user (the verified user its key names). */
  streamsPerUser: number
  /** SSE_STREAMS_PER_ADDRESS: event streams open from one client address. */
  streamsPerAddress: number
  /** SUBSCRIPTIONS_PER_USER: live subscriptions of one user, every transport and conversation together. */
  subscriptionsPerUser: number
  /** SUBSCRIPTIONS_PER_CONVERSATION: live subscriptions of one conversation, every user together. */
  subscriptionsPerConversation: number
  /** SEND_QUEUE_MAX_BYTES: bytes a live connection may have waiting to be sent; one further behind is dropped. */
  sendQueueBytes: number
  /** FILE_STORAGE_PER_USER_BYTES: the total size of one user's files. */
  storagePerUser: number
  /** MESSAGE_STORAGE_PER_USER_BYTES: the bytes one user's messages and custom events take as stored. */
  messageStoragePerUser: number
  /** MESSAGE_MAX_BYTES: a message's payload, as JSON. */
  messageMaxBytes: number
  /** RESPONSE_MAX_BYTES: the JSON answer of a chat API read or write (REST, GraphQL); a larger one is refused with 413 LimitExceeded. */
  responseMaxBytes: number
  /** MESSAGE_STREAM_DELTA_MAX_BYTES: one delta of a bot's message stream (chat:publishMessageStream), its text as UTF-8. */
  messageStreamDeltaMaxBytes: number
  /** MESSAGE_STREAM_DELTAS_PER_SECOND: the deltas one message stream may publish a second (and in a burst). */
  messageStreamDeltasPerSecond: number
  /** MESSAGE_STREAMS_PER_CONVERSATION: message streams open at once in one conversation. */
  messageStreamsPerConversation: number
  /** MESSAGE_STREAMS_PER_BOT: message streams open at once for one bot. */
  messageStreamsPerBot: number
  /** MESSAGE_STREAM_IDLE_TIMEOUT_SECONDS: a message stream without a delta for this long is abandoned and forgotten. */
  messageStreamIdleTimeoutMs: number
}

export const defaultLimits: ResourceLimits = {
  headersTimeoutMs: 20_000,
  requestTimeoutMs: 60_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 20_000,
  subscriptionsPerSocket: 100,
  socketsPerUser: 20,
  socketsPerAddress: 100,
  streamsPerUser: 20,
  streamsPerAddress: 100,
  subscriptionsPerUser: 50,
  subscriptionsPerConversation: 100,
  sendQueueBytes: 1024 * 1024,
  storagePerUser: 50 * 1024 * 1024,
  messageStoragePerUser: 50 * 1024 * 1024,
  messageMaxBytes: 128 * 1024,
  responseMaxBytes: 8 * 1024 * 1024,
  messageStreamDeltaMaxBytes: 16 * 1024,
  messageStreamDeltasPerSecond: 50,
  messageStreamsPerConversation: 8,
  messageStreamsPerBot: 1000,
  messageStreamIdleTimeoutMs: 60_000,
}

/** The caps RATE_LIMITS=off lifts: those counted per user key or client address. */
const perKeyOrAddress = [
  'subscriptionsPerSocket',
  'socketsPerUser',
  'socketsPerAddress',
  'streamsPerUser',
  'streamsPerAddress',
  'subscriptionsPerUser',
  'subscriptionsPerConversation',
  'storagePerUser',
  'messageStoragePerUser',
  'messageStreamDeltasPerSecond',
] as const

/** `limits` with every per-key/per-address cap off (RATE_LIMITS=off); sizes and timeouts stay. */
export const withoutPerKeyCaps = (limits: ResourceLimits): ResourceLimits => ({ ...limits, ...Object.fromEntries(perKeyOrAddress.map((name) => [name, 0])) })

/** Each limit's variable, its unit, and the variable's former name (still read when the new one is unset). */
const limitVariables: Record<keyof ResourceLimits, [env: string, unit: number, former?: string]> = {
  headersTimeoutMs: ['HTTP_HEADERS_TIMEOUT_SECONDS', 1000],
  requestTimeoutMs: ['HTTP_REQUEST_TIMEOUT_SECONDS', 1000],
  keepAliveTimeoutMs: ['HTTP_KEEP_ALIVE_TIMEOUT_SECONDS', 1000],
  maxConnections: ['HTTP_MAX_CONNECTIONS', 1],
  subscriptionsPerSocket: ['WS_SUBSCRIPTIONS_PER_SOCKET', 1],
  socketsPerUser: ['WS_SOCKETS_PER_USER', 1, 'WS_SOCKETS_PER_KEY'],
  socketsPerAddress: ['WS_SOCKETS_PER_ADDRESS', 1],
  streamsPerUser: ['SSE_STREAMS_PER_USER', 1, 'SSE_STREAMS_PER_KEY'],
  streamsPerAddress: ['SSE_STREAMS_PER_ADDRESS', 1],
  subscriptionsPerUser: ['SUBSCRIPTIONS_PER_USER', 1],
  subscriptionsPerConversation: ['SUBSCRIPTIONS_PER_CONVERSATION', 1],
  sendQueueBytes: ['SEND_QUEUE_MAX_BYTES', 1],
  storagePerUser: ['FILE_STORAGE_PER_USER_BYTES', 1],
  messageStoragePerUser: ['MESSAGE_STORAGE_PER_USER_BYTES', 1],
  messageMaxBytes: ['MESSAGE_MAX_BYTES', 1],
  responseMaxBytes: ['RESPONSE_MAX_BYTES', 1],
  messageStreamDeltaMaxBytes: ['MESSAGE_STREAM_DELTA_MAX_BYTES', 1],
  messageStreamDeltasPerSecond: ['MESSAGE_STREAM_DELTAS_PER_SECOND', 1],
  messageStreamsPerConversation: ['MESSAGE_STREAMS_PER_CONVERSATION', 1],
  messageStreamsPerBot: ['MESSAGE_STREAMS_PER_BOT', 1],
  messageStreamIdleTimeoutMs: ['MESSAGE_STREAM_IDLE_TIMEOUT_SECONDS', 1000],
}

function parseLimits(env: NodeJS.ProcessEnv, rateLimitsOff: boolean): ResourceLimits {
  const limits = { ...defaultLimits }
  for (const [name, [current, unit, former]] of Object.entries(limitVariables) as [keyof ResourceLimits, [string, number, string?]][]) {
    const variable = former !== undefined && nonEmpty(env[current]) === undefined ? former : current
    const raw = nonEmpty(env[variable])
    if (raw === undefined) continue
    const value = Number(raw)
    if (!Number.isFinite(value) || value < 0 || (unit === 1 && !Number.isInteger(value))) {
      throw new ConfigError(`${variable} must be ${unit === 1 ? 'a whole number' : 'a number of seconds'}, 0 or more (0: none), got "${raw}"`)
    }
    limits[name] = Math.round(value * unit)
  }
  if (limits.requestTimeoutMs > 0 && (limits.headersTimeoutMs === 0 || limits.headersTimeoutMs > limits.requestTimeoutMs)) {
    throw new ConfigError('HTTP_HEADERS_TIMEOUT_SECONDS must be above 0 and at most HTTP_REQUEST_TIMEOUT_SECONDS when that is set')
  }
  return rateLimitsOff ? withoutPerKeyCaps(limits) : limits
}

function parsePort(raw: string | undefined, name = 'PORT'): number {
  if (raw === undefined || raw === '') return 3000
  const port = Number(raw)
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError(`${name} must be an integer from 0 to 65535, got "${raw}"`)
  }
  return port
}

function parseRateLimits(raw: string | undefined): boolean {
  if (raw === undefined || raw === 'on') return false
  if (raw === 'off') return true
  throw new ConfigError(`RATE_LIMITS must be "on" or "off", got "${raw}"`)
}

function parseGraphiql(raw: string | undefined): boolean {
  if (raw === undefined || raw === 'on') return true
  if (raw === 'off') return false
  throw new ConfigError(`GRAPHIQL must be "on" or "off", got "${raw}"`)
}

function parseNonParticipantStatus(raw: string | undefined): NonParticipantStatus {
  if (raw === undefined || raw === '404') return 404
  if (raw === '403') return 403
  throw new ConfigError(`NON_PARTICIPANT_STATUS must be "404" or "403", got "${raw}"`)
}

function parseBotUrlsPrivate(raw: string | undefined): 'allow' | 'deny' {
  if (raw === undefined || raw === 'allow' || raw === 'deny') return raw ?? 'allow'
  throw new ConfigError(`BOT_URLS_PRIVATE must be "allow" or "deny", got "${raw}"`)
}

/** A rate limit's rule: at most `points` requests in `seconds`. */
export interface RateLimitRule {
  points: number
  seconds: number
}

/**
 * Each rate limit's rule by default (docs/reference/limits.md says what each counts, and per what);
 * undefined: off unless its variable sets it. `botMessages` is off: one bucket per bot that every
 * visitor shares is a budget one user (or a few it made itself) can drain for all the others, so it
 * is only the operator's cost guard, to set knowingly; each user is held to `userWrites`.
 */
export const rateLimitDefaults = {
  createUser: { points: 30, seconds: 60 },
  anonymous: { points: 300, seconds: 60 },
  uploads: { points: 60, seconds: 60 },
  userWrites: { points: 600, seconds: 60 },
  userReads: { points: 1200, seconds: 60 },
  streams: { points: 60, seconds: 60 },
  botMessages: undefined,
  botApi: { points: 3000, seconds: 60 },
  agent: { points: 600, seconds: 60 },
  admin: { points: 600, seconds: 60 },
  failedAuth: { points: 30, seconds: 60 },
} as const satisfies Record<string, RateLimitRule | undefined>

export type RateLimitName = keyof typeof rateLimitDefaults

/** Every rate limit's rule; undefined: that limit is off. */
export type RateLimitRules = Record<RateLimitName, RateLimitRule | undefined>

/** `createUser` → RATE_LIMIT_CREATE_USER. */
export const rateLimitVariable = (name: RateLimitName) => `RATE_LIMIT_${name.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`

function parseRateLimitRules(env: NodeJS.ProcessEnv): RateLimitRules {
  const rules = { ...rateLimitDefaults } as RateLimitRules
  for (const name of Object.keys(rateLimitDefaults) as RateLimitName[]) {
    const variable = rateLimitVariable(name)
    const raw = nonEmpty(env[variable])?.trim()
    if (raw === undefined) continue
    if (raw === '0' || raw === 'off') {
      rules[name] = undefined
      continue
    }
    const match = /^(\d+)\s*\/\s*(\d+)$/.exec(raw)
    const [points, seconds] = [Number(match?.[1]), Number(match?.[2])]
    if (!match || points < 1 || seconds < 1 || seconds > 86_400) {
      throw new ConfigError(`${variable} must be points/seconds (e.g. "30/60": 30 requests a minute), or 0 to turn it off, got "${raw}"`)
    }
    rules[name] = { points, seconds }
  }
  return rules
}

function parseTrustProxy(raw: string | undefined): readonly string[] {
  const list = (raw ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
  try {
    if (list.length > 0) proxyaddr.compile(list)
  } catch (error) {
    throw new ConfigError(`TRUST_PROXY must be comma-separated addresses, CIDR ranges or loopback/linklocal/uniquelocal: ${(error as Error).message}`)
  }
  return list
}

function parseTraceParentTrust(raw: string | undefined): TraceParentTrust {
  if (raw === undefined || raw === 'off' || raw === 'proxy' || raw === 'all') return raw ?? 'off'
  throw new ConfigError(`TRACE_PARENT_TRUST must be "off", "proxy" or "all", got "${raw}"`)
}

function parsePublicUrl(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined
  const url = URL.canParse(raw) ? new URL(raw) : undefined
  // `?` and `#` looked for in the text: an empty query or fragment leaves no trace in the parsed URL.
  if (!url || !['http:', 'https:'].includes(url.protocol) || url.username || url.password || /[?#]/.test(raw)) {
    throw new ConfigError(
      `PUBLIC_URL must be an absolute http(s) URL without credentials, query or fragment (e.g. https://chat.example.com or https://example.com/confab), got "${raw}"`,
    )
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

function parseRetentionDays(raw: string | undefined): number {
  if (raw === undefined) return 0
  const days = Number(raw)
  if (!Number.isInteger(days) || days < 0 || days > 36_500) {
    throw new ConfigError(`RETENTION_DAYS must be a whole number of days from 0 (keep forever) to 36500, got "${raw}"`)
  }
  return days
}

function parseShutdownDelay(raw: string | undefined): number {
  if (raw === undefined) return 0
  const seconds = Number(raw)
  if (!Number.isFinite(seconds) || seconds < 0 || seconds > 3600) {
    throw new ConfigError(`SHUTDOWN_DELAY_SECONDS must be a number of seconds from 0 to 3600, got "${raw}"`)
  }
  return seconds * 1000
}

const nonEmpty = (value: string | undefined) => (value === undefined || value === '' ? undefined : value)

/**
 * The least estimated entropy (src/contracts/secret-strength.ts) of each bootstrap secret an operator sets.
 * The shared key signs every user key with HS256, which RFC 7518 §3.2 wants at least 256 bits for: a
 * weaker one is cracked offline from any one user key. The admin token is a bearer token the server
 * only compares (as a digest): 128 random bits are beyond guessing online or offline, so
 * `bp_pat_$(openssl rand -hex 16)` is enough (its fixed `bp_pat_` prefix counts for nothing).
 */
export const secretMinimumBits = { CONFAB_ENCRYPTION_KEY: 256, CONFAB_ADMIN_TOKEN: 128 } as const

function parseSecret(variable: keyof typeof secretMinimumBits, raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined
  const bits = estimatedEntropyBits(variable === 'CONFAB_ADMIN_TOKEN' ? raw.replace(/^bp_pat_/, '') : raw)
  const needed = secretMinimumBits[variable]
  if (bits < needed) {
    const example = variable === 'CONFAB_ADMIN_TOKEN' ? 'bp_pat_$(openssl rand -hex 16)' : '$(openssl rand -hex 32)'
    throw new ConfigError(
      `${variable} is too weak: about ${bits} bits of entropy estimated, at least ${needed} needed; use a random value (e.g. ${example}) or leave it unset to have one generated`,
    )
  }
  return raw
}

/** DATABASE_URL when unset: an SQLite file, from the folder the server (or a command) runs in. */
export const defaultDatabaseUrl = './data/confab.db'

/**
 * The settings that may hold a secret (a password in a database or Redis URL, the admin token, the
 * encryption key): each may be given as the path of a file holding it instead, in `<NAME>_FILE`, the
 * convention of Docker and Kubernetes secrets and of systemd's credentials, so that the value is never in
 * the environment (which `ps e`, `docker inspect` and crash reports show).
 */
export const secretVariables = ['DATABASE_URL', 'REDIS_URL', 'CONFAB_ADMIN_TOKEN', 'CONFAB_ENCRYPTION_KEY'] as const

/** `env` with each secret read from its `<NAME>_FILE` where that is set (its trailing newlines trimmed). */
function withSecretFiles(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const resolved = { ...env }
  for (const name of secretVariables) {
    const file = nonEmpty(env[`${name}_FILE`])
    if (file === undefined) continue
    if (nonEmpty(env[name]) !== undefined) throw new ConfigError(`${name} and ${name}_FILE are both set: set one of them (an empty ${name} counts as unset)`)
    let content: string
    try {
      content = readFileSync(file, 'utf8')
    } catch (error) {
      // Node's message names the path and the reason (ENOENT, EACCES, EISDIR); never the content.
      throw new ConfigError(`${name}_FILE could not be read: ${(error as Error).message}`)
    }
    // Editors and `echo` end a file with a newline; Kubernetes and Docker secrets keep what was given.
    const value = content.replace(/[\r\n]+$/, '')
    if (value === '') throw new ConfigError(`${name}_FILE names an empty file: ${file}`)
    resolved[name] = value
  }
  return resolved
}

export function loadConfig(given: NodeJS.ProcessEnv = process.env): Config {
  const env = withSecretFiles(given)
  const rateLimitsOff = parseRateLimits(nonEmpty(env.RATE_LIMITS))
  return {
    port: parsePort(env.PORT),
    metricsPort: env.METRICS_PORT === undefined || env.METRICS_PORT === '' ? undefined : parsePort(env.METRICS_PORT, 'METRICS_PORT'),
    metricsHost: nonEmpty(env.METRICS_HOST) ?? '127.0.0.1',
    host: nonEmpty(env.HOST) ?? '127.0.0.1',
    databaseUrl: nonEmpty(env.DATABASE_URL) ?? defaultDatabaseUrl,
    poolSize: parsePoolSize(nonEmpty(env.DATABASE_POOL_SIZE)),
    databaseConnectTimeoutMs: parseSeconds('DATABASE_CONNECT_TIMEOUT_SECONDS', nonEmpty(env.DATABASE_CONNECT_TIMEOUT_SECONDS)),
    readReplicas: parseReadReplicas(nonEmpty(env.READ_REPLICAS)),
    redisUrl: nonEmpty(env.REDIS_URL),
    logLevel: nonEmpty(env.LOG_LEVEL) ?? 'info',
    production: env.NODE_ENV === 'production',
    corsOrigins: parseOrigins(env.CORS_ORIGINS),
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    traceParentTrust: parseTraceParentTrust(nonEmpty(env.TRACE_PARENT_TRUST)),
    publicUrl: parsePublicUrl(nonEmpty(env.PUBLIC_URL)),
    rateLimitsOff,
    caps: parseLimits(env, rateLimitsOff),
    rateLimits: parseRateLimitRules(env),
    botRetrySchedule: parseSchedule(nonEmpty(env.CONFAB_BOT_RETRY_SCHEDULE)),
    botModule: nonEmpty(env.CONFAB_BOT_MODULE),
    botLeaseMs: parseSeconds('CONFAB_BOT_LEASE_SECONDS', nonEmpty(env.CONFAB_BOT_LEASE_SECONDS)),
    botUrlsPrivate: parseBotUrlsPrivate(nonEmpty(env.BOT_URLS_PRIVATE)),
    retentionDays: parseRetentionDays(nonEmpty(env.RETENTION_DAYS)),
    shutdownDelayMs: parseShutdownDelay(nonEmpty(env.SHUTDOWN_DELAY_SECONDS)),
    graphiql: parseGraphiql(nonEmpty(env.GRAPHIQL)),
    nonParticipantStatus: parseNonParticipantStatus(nonEmpty(env.NON_PARTICIPANT_STATUS)),
    bootstrap: {
      workspaceId: nonEmpty(env.CONFAB_WORKSPACE_ID),
      adminToken: parseSecret('CONFAB_ADMIN_TOKEN', nonEmpty(env.CONFAB_ADMIN_TOKEN)),
      webhookId: nonEmpty(env.CONFAB_WEBHOOK_ID),
      encryptionKey: parseSecret('CONFAB_ENCRYPTION_KEY', nonEmpty(env.CONFAB_ENCRYPTION_KEY)),
    },
  }
}
