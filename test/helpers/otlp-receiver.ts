import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

/** A span as an OTLP/HTTP JSON export carries it, its attributes as plain values. */
export interface ReceivedSpan {
  traceId: string
  spanId: string
  parentSpanId: string | undefined
  name: string
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client. */
  kind: number
  attributes: Record<string, string | number | boolean>
  /** OTLP's status code: 0 unset, 1 ok, 2 error. */
  status: number
  service: string | undefined
}

type AnyValue = { stringValue?: string; intValue?: number | string; boolValue?: boolean; doubleValue?: number }
type KeyValue = { key: string; value: AnyValue }

const valueOf = ({ stringValue, intValue, boolValue, doubleValue }: AnyValue) =>
  stringValue ?? (intValue === undefined ? undefined : Number(intValue)) ?? boolValue ?? doubleValue ?? ''

const attributesOf = (list: KeyValue[] = []) => Object.fromEntries(list.map(({ key, value }) => [key, valueOf(value)]))

/**
 * An OpenTelemetry collector played by a node:http server on loopback: it takes OTLP/HTTP JSON at
 * POST /v1/traces (what OTEL_EXPORTER_OTLP_ENDPOINT=<url> makes the exporter send) and keeps every
 * span it is sent; anything else is answered 400 and remembered, so a test can say none came.
 */
export async function startOtlpReceiver() {
  const spans: ReceivedSpan[] = []
  const refused: string[] = []
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    if (req.method !== 'POST' || req.url !== '/v1/traces' || !(req.headers['content-type'] ?? '').includes('application/json')) {
      refused.push(`${req.method} ${req.url} ${req.headers['content-type']}`)
      res.writeHead(400).end()
      return
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
    for (const { resource, scopeSpans = [] } of body.resourceSpans ?? []) {
      const service = attributesOf(resource?.attributes)['service.name'] as string | undefined
      for (const { spans: list = [] } of scopeSpans) {
        for (const span of list) {
          spans.push({
            traceId: span.traceId,
            spanId: span.spanId,
            parentSpanId: span.parentSpanId || undefined,
            name: span.name,
            kind: span.kind,
            attributes: attributesOf(span.attributes),
            status: span.status?.code ?? 0,
            service,
          })
        }
      }
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    /** What OTEL_EXPORTER_OTLP_ENDPOINT is set to (the exporter adds /v1/traces). */
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    refused,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
