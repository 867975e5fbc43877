import { createServer as createHttpServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Logger } from 'pino'
import { type App, type AppOptions, createApp } from './app.ts'
import { bootstrap, type BootstrapResult, firstTenant } from './bootstrap.ts'
import type { BootstrapValues } from './config.ts'
import { openStore } from './db/open.ts'
import { SqliteStore } from './db/sqlite/store.ts'
import type { Store } from './db/store.ts'
import { loadCompiler } from './graphql/compiled-execution.ts'
import { nodeListener } from './http/node-listener.ts'
import { ReadReplicas } from './http/read-replicas.ts'
import { refuseOffTheApp } from './http/wire-refusals.ts'
import { createLogger } from './logger.ts'
import type { RedisSignalBus } from './signals/redis.ts'

export interface ServerOptions extends Omit<AppOptions, 'store' | 'log'> {
  /**
   * A SQLite file path (its directory is created), or `:memory:`; `./data/confab.db` by default. Or
   * `postgres://…`: PostgreSQL, which several instances may share.
   */
  databaseUrl?: string
  /** PostgreSQL: connections in the pool (DATABASE_POOL_SIZE); 10 by default. */
  poolSize?: number
  /**
   * SQLite: worker threads that serve reads (READ_REPLICAS; http/read-replicas.ts); none by default
   * here, one per core up to 4 for `npm start`. Ignored on PostgreSQL, whose instances scale instead.
   */
  readReplicas?: number
  /** Redis (REDIS_URL): live signals then reach the listeners of every instance. */
  redisUrl?: string
  /** 0 (the default) picks a free port; `url` tells which. */
  port?: number
  host?: string
  /** pino at `info` by default. */
  log?: Logger
  /** The first tenant's fixed values (CONFAB_* in main.ts); the others are generated. Ignored once a tenant exists. */
  bootstrap?: BootstrapValues
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
  /**
   * Stops: no new connections, in-flight requests finish, live streams end, the delivery worker
   * finishes the attempts under way (the others stay in the outbox), then the database closes.
   */
  close(): Promise<void>
}

/** Confab listening over HTTP: the store opened and migrated, the first tenant made, the app mounted. */
export async function createServer({
  databaseUrl = './data/confab.db',
  port = 0,
  host = '127.0.0.1',
  log = createLogger('info'),
  bootstrap: bootstrapValues = {},
  poolSize,
  redisUrl,
  readReplicas = 0,
  ...appOptions
}: ServerOptions = {}): Promise<ConfabServer> {
  const store = await openStore(databaseUrl, {
    poolSize,
    onEffectError: (error) => log.error({ err: error }, 'an effect of a committed write failed'),
    checkpoints: { onError: (error) => log.warn({ err: error }, 'SQLite checkpoints on the writer again') },
  })
  let signalBus: RedisSignalBus | undefined
  let created: BootstrapResult | undefined
  try {
    // Imported when asked for, as pg is (db/open.ts): ioredis is not loaded by the embedded default.
    signalBus = redisUrl
      ? await (await import('./signals/redis.ts')).connectRedisSignalBus(redisUrl, {
          onPublishError: (error) => log.warn({ err: error }, 'a signal could not be published to Redis; other instances miss it'),
        })
      : undefined
    created = await bootstrap(store, firstTenant(bootstrapValues))
  } catch (error) {
    await signalBus?.close()
    await store.close()
    throw error
  }
  if (store.shared && !signalBus) {
    log.warn('PostgreSQL without REDIS_URL: live signals reach the listeners of this instance only; run one instance, or set REDIS_URL')
  }
  const app = createApp({ store, log, signalBus, ...appOptions })
  const replicas =
    store instanceof SqliteStore && readReplicas > 0
      ? new ReadReplicas({
          count: readReplicas,
          source: store.replicaSource,
          corsOrigins: appOptions.corsOrigins ?? [],
          publicUrl: appOptions.publicUrl,
          trustProxy: appOptions.trustProxy,
          log,
        })
      : undefined
  const server = createHttpServer(nodeListener(app.fetch, { log, replicable: app.replicable, replicas }))
  app.attach(server)
  refuseOffTheApp(server)
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(port, host, resolve)
    })
  } catch (error) {
    await replicas?.close()
    await app.close()
    await signalBus?.close()
    await store.close()
    throw error
  }
  // graphql-jit's import takes 60–80 ms of the event loop: taken now, while the server is new, rather
  // than in the middle of its first requests. A failure is logged by the plugin when it first needs
  // the compiler, and GraphQL then runs interpreted.
  loadCompiler().catch(() => {})
  const address = server.address() as AddressInfo
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`

  let closing: Promise<void> | undefined
  const close = () =>
    (closing ??= (async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()))
      void app.endLiveConnections()
      server.closeIdleConnections()
      const force = setTimeout(() => server.closeAllConnections(), 10_000).unref()
      await closed
      clearTimeout(force)
      await replicas?.close()
      await app.close()
      await signalBus?.close()
      await store.close()
    })())
  return { url, created, app, store, server, replicas, close }
}
