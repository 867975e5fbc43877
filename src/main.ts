import { builtInHandlers } from './bots/handlers.ts'
import { loadBotModule } from './bots/module.ts'
import { describeBootstrap } from './bootstrap.ts'
import { loadConfig } from './config.ts'
import { outboundPolicy } from './domain/outbound-policy.ts'
import { createLogger } from './logger.ts'
import { createServer } from './server.ts'
import { startTracing } from './tracing/tracing.ts'

/** The first-run variables, by the bootstrap value each sets. */
const bootstrapVariables = {
  CONFAB_WORKSPACE_ID: 'workspaceId',
  CONFAB_ADMIN_TOKEN: 'adminToken',
  CONFAB_WEBHOOK_ID: 'webhookId',
  CONFAB_ENCRYPTION_KEY: 'encryptionKey',
} as const

async function main() {
  const config = loadConfig()
  const log = createLogger(config.logLevel)
  // Before the server is made, which traces itself as it is made when traces are on.
  const traces = await startTracing()
  if (traces) log.info('OpenTelemetry traces on: spans are exported to the OTLP endpoint (OTEL_EXPORTER_OTLP_ENDPOINT)')
  const handlers = config.botModule ? { ...builtInHandlers, echo: await loadBotModule(config.botModule) } : builtInHandlers
  const confab = await createServer({
    databaseUrl: config.databaseUrl,
    poolSize: config.poolSize,
    databaseConnectTimeoutMs: config.databaseConnectTimeoutMs,
    readReplicas: config.readReplicas,
    redisUrl: config.redisUrl,
    port: config.port,
    metricsPort: config.metricsPort,
    metricsHost: config.metricsHost,
    host: config.host,
    log,
    bootstrap: config.bootstrap,
    corsOrigins: config.corsOrigins,
    publicUrl: config.publicUrl,
    trustProxy: config.trustProxy,
    traceParentTrust: config.traceParentTrust,
    caps: config.caps,
    rateLimits: config.rateLimitsOff ? 'off' : config.rateLimits,
    handlers,
    botRetrySchedule: config.botRetrySchedule,
    botLeaseMs: config.botLeaseMs,
    outbound: outboundPolicy(config.botUrlsPrivate),
    retention: { days: config.retentionDays },
    graphiql: config.graphiql,
    nonParticipantStatus: config.nonParticipantStatus,
  })
  if (confab.created) process.stdout.write(describeBootstrap(confab.created, config.publicUrl ?? confab.url))
  const ignored = Object.entries(bootstrapVariables).filter(([, key]) => config.bootstrap[key] !== undefined)
  if (!confab.created && ignored.length > 0) {
    log.warn(
      { variables: ignored.map(([name]) => name) },
      'the database has its tenant already, so these first-run values are ignored; `npm run confab -- credentials` shows what is stored',
    )
  }
  process.stdout.write(`Confab listening on ${confab.url}\n`)
  // The one variable the docs' examples read for Confab's address: the public one when it has one.
  process.stdout.write(`export CONFAB_URL=${config.publicUrl ?? confab.url}\n`)
  if (confab.metricsUrl) process.stdout.write(`Metrics at ${confab.metricsUrl}\n`)

  let stopping = false
  const stop = (signal: string) => {
    if (stopping) {
      log.info({ signal }, 'a second signal: stopping without waiting for the rest of the shutdown delay')
      void confab.close()
      return
    }
    stopping = true
    log.info({ signal, shutdownDelaySeconds: config.shutdownDelayMs / 1000 }, 'shutting down')
    void confab
      .close({ delayMs: config.shutdownDelayMs })
      .then(() => traces?.shutdown())
      .catch((error: unknown) => log.warn({ err: error }, 'the last spans could not be exported'))
      .finally(() => process.exit(0))
  }
  process.on('SIGINT', () => stop('SIGINT'))
  process.on('SIGTERM', () => stop('SIGTERM'))
}

/**
 * Why a start failed, in the words of the settings that cause it: a listener's error names the
 * variable (PORT, METRICS_PORT or HOST) to change rather than the system call that failed.
 */
function whyNotStarted(error: unknown, { port, metricsPort }: { port: number; metricsPort?: number }): string {
  const { code, address, port: failedPort } = (error ?? {}) as NodeJS.ErrnoException & { address?: string; port?: number }
  const variable = failedPort !== undefined && failedPort === metricsPort && failedPort !== port ? 'METRICS_PORT' : 'PORT'
  if (code === 'EADDRINUSE') {
    return `port ${failedPort} on ${address} is in use by another process (${variable}=${failedPort}): stop that process, or set ${variable} to a free port`
  }
  if (code === 'EACCES' && failedPort !== undefined) {
    return `this process may not listen on port ${failedPort} of ${address} (${variable}=${failedPort}): set ${variable} to a port above 1023`
  }
  if (code === 'EADDRNOTAVAIL') return `HOST=${address} is not an address of this machine: set HOST to one of its addresses, or 0.0.0.0`
  return error instanceof Error ? error.message : String(error)
}

main().catch((error: unknown) => {
  const ports = (() => {
    try {
      return loadConfig()
    } catch {
      return { port: Number.NaN }
    }
  })()
  process.stderr.write(`Confab failed to start: ${whyNotStarted(error, ports)}\n`)
  process.exit(1)
})
