import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createServerAdapter } from '@whatwg-node/server'
import { createApp } from './app.ts'
import { builtInHandlers } from './bots/handlers.ts'
import { loadBotModule } from './bots/module.ts'
import { bootstrap, describeBootstrap, firstTenant } from './bootstrap.ts'
import { loadConfig } from './config.ts'
import { openStore } from './db/open.ts'
import { createLogger } from './logger.ts'

async function main() {
  const config = loadConfig()
  const log = createLogger(config.logLevel)
  const store = await openStore(config.databaseUrl, {
    onEffectError: (error) => log.error({ err: error }, 'an effect of a committed write failed'),
  })
  const created = await bootstrap(store, firstTenant(config.bootstrap))
  const handlers = config.botModule ? { ...builtInHandlers, echo: await loadBotModule(config.botModule) } : builtInHandlers
  const app = createApp({ store, log, corsOrigins: config.corsOrigins, handlers, botRetrySchedule: config.botRetrySchedule })
  const server = createServer(createServerAdapter(app.fetch))
  app.attach(server)

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(config.port, config.host, resolve)
  })
  const { port } = server.address() as AddressInfo
  const host = config.host.includes(':') ? `[${config.host}]` : config.host
  const baseUrl = `http://${host}:${port}`
  if (created) process.stdout.write(describeBootstrap(created, baseUrl))
  process.stdout.write(`Confab listening on ${baseUrl}\n`)

  let stopping = false
  const stop = (signal: string) => {
    if (stopping) return
    stopping = true
    log.info({ signal }, 'shutting down')
    // In-flight requests finish; live streams and idle keep-alive sockets are closed so that
    // close() can complete; the bot runtime finishes what it is handling, and the store commits
    // what was submitted, before the database closes.
    server.close(() => {
      void app
        .close()
        .then(() => store.close())
        .finally(() => process.exit(0))
    })
    void app.endLiveConnections()
    server.closeIdleConnections()
    setTimeout(() => {
      server.closeAllConnections()
    }, 10_000).unref()
  }
  process.on('SIGINT', () => stop('SIGINT'))
  process.on('SIGTERM', () => stop('SIGTERM'))
}

main().catch((error: unknown) => {
  process.stderr.write(`Confab failed to start: ${error instanceof Error ? error.message : String(error)}\n`)
  process.exit(1)
})
