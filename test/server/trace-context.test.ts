import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { loadConfig } from '../../src/config.ts'
import { startOtlpReceiver } from '../helpers/otlp-receiver.ts'
import { ensureBuilt, START_TIMEOUT, startServer } from '../helpers/server.ts'

// Issue 49 row 12: a client-chosen `traceparent` was continued from the internet (a stranger picked
// trace ids, or opted out of sampling with `-00`). W3C Trace Context: restart traces at the trust
// boundary. TRACE_PARENT_TRUST says whom Confab believes: off (default), proxy (TRUST_PROXY), all.

const dir = mkdtempSync(join(tmpdir(), 'confab-trace-context-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
beforeAll(ensureBuilt, START_TIMEOUT)

const chosenTrace = '4bf92f3577b34da6a3ce929d0e0e4736'
const chosenSpan = '00f067aa0ba902b7'

/** The server spans a server started with `env` exports for one GET /healthz carrying `traceparent`. */
async function serverSpansOf(name: string, env: Record<string, string>, traceparent: string) {
  const collector = await startOtlpReceiver()
  const server = await startServer({
    databaseUrl: join(dir, `${name}.db`),
    env: {
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '50',
      READ_REPLICAS: '0',
      ...env,
    },
  })
  try {
    expect((await fetch(`${server.baseUrl}/healthz`, { headers: { traceparent } })).status).toBe(200)
    // A second request without one, traced either way.
    expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200)
    return await vi.waitFor(
      () => {
        const spans = collector.spans.filter((span) => span.kind === 2)
        expect(spans).toHaveLength(2)
        return spans
      },
      { timeout: 20_000, interval: 50 },
    )
  } finally {
    await server.stop()
    await collector.close()
  }
}

describe('TRACE_PARENT_TRUST', () => {
  it('is off unless set; takes off, proxy or all, and refuses anything else', () => {
    expect(loadConfig({}).traceParentTrust).toBe('off')
    for (const value of ['off', 'proxy', 'all'] as const) expect(loadConfig({ TRACE_PARENT_TRUST: value }).traceParentTrust).toBe(value)
    expect(() => loadConfig({ TRACE_PARENT_TRUST: 'yes' })).toThrow('TRACE_PARENT_TRUST must be "off", "proxy" or "all", got "yes"')
  })

  it(
    'off (the default): a caller\'s traceparent is not continued, and its "-00" does not stop the request being traced',
    async () => {
      const spans = await serverSpansOf('off', {}, `00-${chosenTrace}-${chosenSpan}-00`)
      expect(spans).toHaveLength(2)
      for (const span of spans) {
        expect(span.traceId).not.toBe(chosenTrace)
        expect(span.parentSpanId).toBeUndefined()
      }
    },
    START_TIMEOUT,
  )

  it(
    'proxy: the traceparent of a request from a TRUST_PROXY proxy is continued',
    async () => {
      const spans = await serverSpansOf('proxy', { TRACE_PARENT_TRUST: 'proxy', TRUST_PROXY: 'loopback' }, `00-${chosenTrace}-${chosenSpan}-01`)
      expect(spans.filter((span) => span.traceId === chosenTrace).map((span) => span.parentSpanId)).toEqual([chosenSpan])
    },
    START_TIMEOUT,
  )

  it(
    'proxy: from an address that is no trusted proxy, it is not',
    async () => {
      const spans = await serverSpansOf('untrusted', { TRACE_PARENT_TRUST: 'proxy', TRUST_PROXY: '10.9.8.7' }, `00-${chosenTrace}-${chosenSpan}-01`)
      expect(spans).toHaveLength(2)
      expect(spans.map((span) => span.traceId)).not.toContain(chosenTrace)
    },
    START_TIMEOUT,
  )
})
