import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client as ChatClient } from '@botpress/chat'
import { Client } from '@botpress/client'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { startReceiver } from '../bots/receiver.ts'
import { startOtlpReceiver } from '../helpers/otlp-receiver.ts'
import { ensureBuilt, randomAdminToken, ROOT, START_TIMEOUT, startServer } from '../helpers/server.ts'

const dir = mkdtempSync(join(tmpdir(), 'confab-tracing-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
beforeAll(ensureBuilt, START_TIMEOUT)

const workspaceId = 'wkspace_tracing'
const adminToken = randomAdminToken()
const probe = `--import=${join(ROOT, 'test/helpers/module-probe.mjs')}`

/** The OpenTelemetry packages among the modules a server process loaded (module-probe.mjs). */
const openTelemetryLoaded = (probeFile: string) => {
  const lines = readFileSync(probeFile, 'utf8').split('\n')
  expect(lines).toContain('(exit)')
  return lines.filter((line) => line.includes('/node_modules/@opentelemetry/'))
}

/** A bot created with a url on loopback, a user who sends it one message over REST; the bot's request. */
async function chatWithWebhookBot(baseUrl: string) {
  const bot = await startReceiver(() => ({ status: 200 }))
  try {
    const admin = new Client({ apiUrl: baseUrl, token: adminToken, workspaceId })
    const { bot: created } = await admin.createBot({ name: 'Traced', url: bot.url })
    const chat = await ChatClient.connect({ apiUrl: created.integrations.chat!.webhookUrl })
    const { conversation } = await chat.createConversation({})
    await chat.createMessage({ conversationId: conversation.id, payload: { type: 'text', text: 'hello' } })
    await vi.waitFor(() => expect(bot.received.some(({ json }) => json.type === 'message')).toBe(true), { timeout: 20_000 })
    const delivered = bot.received.find(({ json }) => json.type === 'message')!
    return { delivered, conversationId: conversation.id, webhookUrl: created.integrations.chat!.webhookUrl }
  } finally {
    await bot.close()
  }
}

describe('OpenTelemetry traces (OTEL_EXPORTER_OTLP_ENDPOINT)', () => {
  it(
    'exports the spans of a REST createMessage (HTTP, GraphQL, unit of work) and of its webhook delivery, whose traceparent the bot gets',
    async () => {
      const collector = await startOtlpReceiver()
      const probeFile = join(dir, 'on.modules')
      const server = await startServer({
        databaseUrl: join(dir, 'on.db'),
        env: {
          CONFAB_WORKSPACE_ID: workspaceId,
          CONFAB_ADMIN_TOKEN: adminToken,
          OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
          OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
          OTEL_SERVICE_NAME: 'confab-under-test',
          // Spans are batched; a short delay sends them while the test waits for them.
          OTEL_BSP_SCHEDULE_DELAY: '50',
          NODE_OPTIONS: probe,
          MODULE_PROBE_FILE: probeFile,
        },
      })
      try {
        const { delivered, conversationId, webhookUrl } = await chatWithWebhookBot(server.baseUrl)
        const graphql = await fetch(`${webhookUrl}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query: '{ __typename }' }),
        })
        expect(graphql.status).toBe(200)
        const traceparent = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/.exec(delivered.headers.traceparent ?? '')
        expect(traceparent, `traceparent: ${delivered.headers.traceparent}`).not.toBeNull()
        const [, deliveryTrace, deliverySpan] = traceparent as RegExpExecArray

        const named = (name: string) => collector.spans.filter((span) => span.name === name)
        await vi.waitFor(
          () => {
            expect(named('POST /:webhookId/messages')).toHaveLength(1)
            expect(named('POST /:webhookId/graphql')).toHaveLength(1)
            expect(named('bot delivery').map(({ traceId }) => traceId)).toContain(deliveryTrace)
          },
          { timeout: 20_000, interval: 50 },
        )
        const [request] = named('POST /:webhookId/messages')
        expect(request).toMatchObject({
          kind: 2,
          parentSpanId: undefined,
          service: 'confab-under-test',
          attributes: {
            'http.request.method': 'POST',
            'http.route': '/:webhookId/messages',
            'http.response.status_code': 200,
            'confab.transport': 'rest',
            'confab.operation': 'createMessage',
          },
        })
        expect(named('POST /:webhookId/graphql')[0]).toMatchObject({
          kind: 2,
          attributes: {
            'http.route': '/:webhookId/graphql',
            'http.response.status_code': 200,
            'confab.transport': 'graphql',
            'confab.operation': 'query __typename',
          },
        })
        // No span names or carries an id: the conversation's appears nowhere.
        expect(JSON.stringify(collector.spans)).not.toContain(conversationId)

        const inTrace = collector.spans.filter(({ traceId }) => traceId === request!.traceId)
        const execution = inTrace.find(({ name }) => name === 'mutation createMessage')
        expect(execution).toMatchObject({ parentSpanId: request!.spanId, attributes: { 'graphql.operation.type': 'mutation' } })
        const unit = inTrace.find(({ name }) => name === 'unit of work')
        expect(unit).toMatchObject({ parentSpanId: execution!.spanId, attributes: { 'db.system.name': 'sqlite' } })

        const attempt = named('bot delivery').find(({ traceId }) => traceId === deliveryTrace)
        expect(attempt).toMatchObject({
          spanId: deliverySpan,
          kind: 3,
          status: 0,
          attributes: { 'confab.bot.protocol': 'webhook', 'confab.delivery.attempt': 1, 'confab.event.type': 'message' },
        })
        expect(collector.refused).toEqual([])
      } finally {
        await server.stop()
        await collector.close()
      }
      // The positive control of the test below: the probe sees OpenTelemetry when it is loaded.
      expect(openTelemetryLoaded(probeFile)).toEqual(expect.arrayContaining([expect.stringContaining('@opentelemetry/sdk-trace-node')]))
    },
    START_TIMEOUT,
  )

  it(
    'without the variable, no OpenTelemetry module is loaded and the bot gets no traceparent',
    async () => {
      const probeFile = join(dir, 'off.modules')
      const env: Record<string, string> = {
        CONFAB_WORKSPACE_ID: workspaceId,
        CONFAB_ADMIN_TOKEN: adminToken,
        NODE_OPTIONS: probe,
        MODULE_PROBE_FILE: probeFile,
      }
      const server = await startServer({ databaseUrl: join(dir, 'off.db'), env })
      try {
        const { delivered } = await chatWithWebhookBot(server.baseUrl)
        expect(delivered.headers.traceparent).toBeUndefined()
      } finally {
        await server.stop()
      }
      expect(openTelemetryLoaded(probeFile)).toEqual([])
    },
    START_TIMEOUT,
  )
})
