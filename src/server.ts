import { createServer as createHttpServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Logger } from 'pino'
import { type App, type AppOptions, createApp } from './app.ts'
import { bootstrap, type BootstrapResult, firstTenant } from './bootstrap.ts'
import { type BootstrapValues, defaultDatabaseUrl, defaultLimits, type ResourceLimits, type TraceParentTrust } from './config.ts'
import { openStore } from './db/open.ts'
import { SqliteStore } from './db/sqlite/store.ts'
import type { Store } from './db/store.ts'
import { deliveryBacklog } from './domain/bots/delivery/outbox.ts'
import { handoffCensus } from './domain/handoff-census.ts'
import { loadCompiler } from './graphql/compiled-execution.ts'
import { nodeListener } from './http/node-listener.ts'
import { peerOf } from './http/peer.ts'
import { trustedProxies } from './http/trusted-proxy.ts'
import type { Metrics } from './http/metrics.ts'
import { ReadReplicas } from './http/read-replicas.ts'
import { refuseOffTheApp } from './http/wire-refusals.ts'
import { createLogger } from './logger.ts'
import { connectRateLimitRedis } from './limits/rate-limits.ts'
import type { RedisSignalBus } from './signals/redis.ts'
import { traceStore } from './tracing/store.ts'
import { tracing } from './tracing/tracing.ts'

export interface ServerOptions extends Omit<AppOptions, 'store' | 'log'> {
  /**
   * A SQLite file path (its directory is created), or `:memory:`; `./data/confab.db` by default. Or
   * `postgres://…`: PostgreSQL, which several instances may share.
   */
  databaseUrl?: string
  /** PostgreSQL: connections in the pool (DATABASE_POOL_SIZE); 10 by default. */
  poolSize?: number
  /** PostgreSQL: how long a request waits for a connection before it is answered 503 (DATABASE_CONNECT_TIMEOUT_SECONDS); 5 s by default. */
  databaseConnectTimeoutMs?: number
  /**
   * SQLite: worker threads that serve reads (READ_REPLICAS; http/read-replicas.ts); none by default
   * here, one per core up to 4 for `npm start`. Ignored on PostgreSQL, whose instances scale instead.
   */
  readReplicas?: number
  /** Redis (REDIS_URL): live signals then reach the listeners of every instance, and the rate limits count there. */
  redisUrl?: string
  /** The prefix of the rate limits' Redis keys (`confab:rl` by default): deployments sharing one Redis keep apart by it. */
  rateLimitPrefix?: string
  /** 0 (the default) picks a free port; `url` tells which. */
  port?: number
  host?: string
  /** pino at `info` by default. */
  log?: Logger
  /** METRICS_PORT: Prometheus metrics at GET /metrics on a listener of its own, on `metricsHost`; none when absent. */
  metricsPort?: number
  /**
   * METRICS_HOST: the address the metrics listener binds; loopback (`127.0.0.1`) by default, whatever
   * `host` is: a server that listens on every interface does not publish its metrics with it.
   */
  metricsHost?: string
  /** The first tenant's fixed values (CONFAB_* in main.ts); the others are generated. Ignored once a tenant exists. */
  bootstrap?: BootstrapValues
  /** TRACE_PARENT_TRUST (traces on): whose `traceparent` is continued; `off` (none) by default. */
  traceParentTrust?: TraceParentTrust
}

export interface ConfabServer {
  /** `http://host:port`: the admin API is at `${url}/v1/admin`, a bot's chat API at `${url}/${webhookId}`. */
  url: string
  /** The tenant this start created, or undefined when the database had one. */
  created: BootstrapResult | undefined
  app: App
  store: Store
  server: Server
  /** The read replicas, when there are some (SQLite, `readReplicas`). */
  replicas: ReadReplicas | undefined
  /** `http://host:port/metrics`, when `metricsPort` was given. */
  metricsUrl: string | undefined
  /**
   * Stops: /readyz answers 503 at once; after `delayMs` (SHUTDOWN_DELAY_SECONDS, none by default), during
   * which every other request is still served, the listener closes: requests that still arrive on open
   * connections are refused with 503, in-flight requests finish, live streams end, the delivery worker
   * finishes the attempts under way (the others stay in the outbox), then the database closes. A call
   * while stopping ends the delay at once (a second signal).
   */
  close(options?: { delayMs?: number }): Promise<void>
}

/**
 * The node HTTP server of an app, bounded (docs/reference/limits.md): a client must send its headers within
 * `headersTimeout` and its whole request within `requestTimeout` (else 408 and the connection
 * closes), an idle kept-alive connection closes after `keepAliveTimeout`, and past `maxConnections`
 * a new connection is closed at once. Node's requestTimeout covers receiving a request only: a
 * response, such as an event stream, runs as long as it runs.
 */
export function httpServer(
  app: App,
  {
    log,
    replicas,
    caps,
    metrics,
    traceParentTrust = 'off',
    trustProxy = [],
  }: { log: Logger; replicas?: ReadReplicas; caps: ResourceLimits; metrics?: Metrics; traceParentTrust?: TraceParentTrust; trustProxy?: readonly string[] },
): Server {
  // W3C Trace Context: a trace is restarted at the trust boundary; a stranger neither picks its trace
  // ids nor opts out of sampling (`-00`). Only the proxies the operator names are believed.
  const proxies = trustedProxies(trustProxy)
  const continuesTrace =
    traceParentTrust === 'all' ? () => true : traceParentTrust === 'proxy' ? (req: IncomingMessage) => proxies.trusts(peerOf(req)) : () => false
  const timeouts = [caps.headersTimeoutMs, caps.requestTimeoutMs].filter((ms) => ms > 0)
  const server = createHttpServer(
    {
      headersTimeout: caps.headersTimeoutMs,
      requestTimeout: caps.requestTimeoutMs,
      keepAliveTimeout: caps.keepAliveTimeoutMs,
      // Node checks the two timeouts every 30 s by default: a slow client would get up to 30 s more.
      ...(timeouts.length > 0 ? { connectionsCheckingInterval: Math.max(10, Math.min(1_000, ...timeouts.map((ms) => ms / 4))) } : {}),
    },
    nodeListener(app.fetch, {
      log,
      replicable: app.replicable,
      replicas,
      admitStream: app.admitStream,
      admission: app.replicaAdmission,
      observe: metrics && ((labels, status, seconds) => metrics.request(labels?.transport ?? 'none', labels?.operation ?? '(unknown)', status, seconds)),
      streamOpened: metrics && (() => metrics.streamOpened()),
      sendQueues: app.sendQueues,
      continuesTrace,
    }),
  )
  if (caps.maxConnections > 0) server.maxConnections = caps.maxConnections
  return server
}

/**
 * Confab listening over HTTP: the store opened and migrated, the app mounted and listening, then the
 * first tenant made (a request in between finds no webhook id yet: 404).
 */
export async function createServer({
  databaseUrl = defaultDatabaseUrl,
  port = 0,
  host = '127.0.0.1',
  log = createLogger('info'),
  bootstrap: bootstrapValues = {},
  poolSize,
  databaseConnectTimeoutMs,
  redisUrl,
  rateLimitPrefix,
  readReplicas = 0,
  metricsPort,
  metricsHost = '127.0.0.1',
  traceParentTrust,
  ...appOptions
}: ServerOptions = {}): Promise<ConfabServer> {
  // Made only when they are served: without METRICS_PORT nothing is counted at all, and prom-client
  // (which loads OpenTelemetry's API) is not even imported.
  const metricsModule = metricsPort === undefined ? undefined : await import('./http/metrics.ts')
  const metrics = metricsModule && new metricsModule.Metrics()
  const store = await openStore(databaseUrl, {
    poolSize,
    connectTimeoutMs: databaseConnectTimeoutMs,
    // Once per outage, not per request: each request meanwhile is answered 503 (docs/guides/several-instances.md).
    onAvailability: (available, error) =>
      available
        ? log.info('the database answers again')
        : log.warn({ err: error }, 'the database connection was lost: requests are answered 503 until it answers again'),
    onCommit: metrics && ((units, seconds) => metrics.committed(units, seconds)),
    onEffectError: (error) => log.error({ err: error }, 'an effect of a committed write failed'),
    checkpoints: { onError: (error) => log.warn({ err: error }, 'SQLite checkpoints on the writer again') },
  })
  const traces = tracing()
  if (traces) traceStore(store, traces, store.shared ? 'postgresql' : 'sqlite')
  let signalBus: RedisSignalBus | undefined
  let created: BootstrapResult | undefined
  let rateLimitRedis: Awaited<ReturnType<typeof connectRateLimitRedis>> | undefined
  try {
    // Imported when asked for, as pg is (db/open.ts): ioredis is not loaded by the embedded default.
    signalBus = redisUrl
      ? await (await import('./signals/redis.ts')).connectRedisSignalBus(redisUrl, {
          onPublishError: (error) => log.warn({ err: error }, 'a signal could not be published to Redis; other instances miss it'),
        })
      : undefined
    // The rate limits' counters in Redis, on a connection of their own (the signal bus subscribes on one of its two).
    rateLimitRedis = redisUrl && appOptions.rateLimits !== 'off' ? await connectRateLimitRedis(redisUrl) : undefined
  } catch (error) {
    rateLimitRedis?.disconnect()
    await signalBus?.close()
    await store.close()
    throw error
  }
  if (store.shared && !signalBus) {
    log.warn('PostgreSQL without REDIS_URL: live signals reach the listeners of this instance only; run one instance, or set REDIS_URL')
  }
  const app = createApp({
    store,
    log,
    signalBus,
    ...appOptions,
    rateLimitStore: rateLimitRedis && { redis: rateLimitRedis, prefix: rateLimitPrefix },
    deliveryObserver: metrics,
    handoffObserver: metrics,
  })
  const replicas =
    store instanceof SqliteStore && readReplicas > 0
      ? new ReadReplicas({
          count: readReplicas,
          source: store.replicaSource,
          corsOrigins: appOptions.corsOrigins ?? [],
          publicUrl: appOptions.publicUrl,
          trustProxy: appOptions.trustProxy ?? [],
          responseMaxBytes: appOptions.caps?.responseMaxBytes,
          rateLimits: appOptions.rateLimits,
          nonParticipantStatus: appOptions.nonParticipantStatus,
          log,
        })
      : undefined
  const server = httpServer(app, {
    log,
    replicas,
    caps: appOptions.caps ?? defaultLimits,
    metrics,
    traceParentTrust,
    trustProxy: appOptions.trustProxy,
  })
  metrics?.observe({
    liveSockets: () => app.openSockets(),
    droppedConnections: () => app.sendQueues.stats.dropped,
    deliveryBacklog: () => deliveryBacklog(store),
    handoffCensus: () => handoffCensus(store),
    replicaHeaps: replicas && (() => replicas.heaps()),
  })
  app.attach(server)
  refuseOffTheApp(server)
  let metricsServer: Server | undefined
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(port, host, resolve)
    })
    if (metrics && metricsModule && metricsPort !== undefined) metricsServer = await metricsModule.serveMetrics(metrics, metricsPort, metricsHost)
    // Only once the ports are bound: a start that cannot listen (PORT taken) must not create the tenant
    // whose admin token is printed once, or the next start would have nothing to show.
    created = await bootstrap(store, firstTenant(bootstrapValues))
  } catch (error) {
    metricsServer?.close()
    server.close()
    await replicas?.close()
    await app.close()
    rateLimitRedis?.disconnect()
    await signalBus?.close()
    await store.close()
    throw error
  }
  // graphql-jit's import takes 60–80 ms of the event loop: taken now, while the server is new, rather
  // than in the middle of its first requests. A failure is logged by the plugin when it first needs
  // the compiler, and GraphQL then runs interpreted.
  loadCompiler().catch(() => {})
  const address = server.address() as AddressInfo
  const origin = (port: number, at = host) => `http://${at.includes(':') ? `[${at}]` : at}:${port}`
  const url = origin(address.port)
  const metricsUrl = metricsServer && `${origin((metricsServer.address() as AddressInfo).port, metricsHost)}/metrics`

  let closing: Promise<void> | undefined
  let endDelay: (() => void) | undefined
  const close = ({ delayMs = 0 }: { delayMs?: number } = {}) => {
    if (closing) {
      endDelay?.()
      return closing
    }
    app.drain()
    closing = (async () => {
      // Load balancers see /readyz fail and stop sending new requests meanwhile.
      if (delayMs > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, delayMs)
          endDelay = () => {
            clearTimeout(timer)
            resolve()
          }
        })
      }
      app.refuseRequests()
      const closed = new Promise<void>((resolve) => server.close(() => resolve()))
      metricsServer?.close()
      void app.endLiveConnections()
      server.closeIdleConnections()
      const force = setTimeout(() => server.closeAllConnections(), 10_000).unref()
      await closed
      clearTimeout(force)
      await replicas?.close()
      await app.close()
      await rateLimitRedis?.quit().catch(() => rateLimitRedis?.disconnect())
      await signalBus?.close()
      await store.close()
    })()
    return closing
  }
  return { url, created, app, store, server, replicas, metricsUrl, close }
}
