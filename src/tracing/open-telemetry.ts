// Imported by tracing.ts only when traces are asked for: nothing of OpenTelemetry is loaded otherwise.
import { context, propagation, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api'
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources'
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node'
import type { SpanOptions, TraceSpan, Tracing } from './tracer.ts'

const kinds = { server: SpanKind.SERVER, client: SpanKind.CLIENT, internal: SpanKind.INTERNAL } as const

/**
 * OpenTelemetry's SDK as its variables configure it (OTEL_EXPORTER_OTLP_*, OTEL_SERVICE_NAME,
 * OTEL_RESOURCE_ATTRIBUTES, OTEL_TRACES_SAMPLER, OTEL_BSP_*): spans batched and sent over OTLP/HTTP
 * as JSON, the active span carried across awaits (AsyncLocalStorage), W3C trace context propagated.
 */
export function openTelemetry(): Tracing {
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': 'confab' }))
    // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES, when set, win.
    .merge(detectResources({ detectors: [envDetector] }))
  const provider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())] })
  provider.register()
  const tracer = provider.getTracer('confab')
  const protocol = process.env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? process.env.OTEL_EXPORTER_OTLP_PROTOCOL
  if (protocol && protocol !== 'http/json') {
    process.emitWarning(`Confab sends traces as OTLP/HTTP JSON; the protocol ${protocol} (OTEL_EXPORTER_OTLP_PROTOCOL) is not used`)
  }

  const fail = (span: TraceSpan, reason: string) => void (span as Span).setStatus({ code: SpanStatusCode.ERROR, message: reason })

  const parentOf = ({ root, continues }: SpanOptions) =>
    continues ? propagation.extract(context.active(), continues) : root ? trace.deleteSpan(context.active()) : context.active()

  return {
    inSpan(name, options, work) {
      const parent = parentOf(options)
      const span = tracer.startSpan(name, { kind: kinds[options.kind ?? 'internal'], attributes: options.attributes, root: options.root }, parent)
      return context.with(trace.setSpan(parent, span), async () => {
        try {
          return await work(span)
        } catch (error) {
          span.recordException(error instanceof Error ? error : String(error))
          fail(span, error instanceof Error ? error.message : String(error))
          throw error
        } finally {
          span.end()
        }
      })
    },
    fail,
    contextHeaders() {
      const headers: Record<string, string> = {}
      propagation.inject(context.active(), headers)
      return headers
    },
    shutdown: () => provider.shutdown(),
  }
}
