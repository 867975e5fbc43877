/**
 * What traced code asks of tracing, without importing anything of OpenTelemetry (tracing.ts says
 * when it is on; open-telemetry.ts does it).
 */

/** What a traced place may tell its span while it runs (a part of OpenTelemetry's Span). */
export interface TraceSpan {
  setAttribute(key: string, value: string | number | boolean): unknown
  updateName(name: string): unknown
}

export interface SpanOptions {
  kind?: 'server' | 'client' | 'internal'
  attributes?: Record<string, string | number | boolean>
  /** A new trace, whatever span is active (work that runs for no request, such as a delivery attempt). */
  root?: boolean
  /** The headers of a request that may continue a caller's trace (W3C traceparent and tracestate). */
  continues?: Record<string, string | string[] | undefined>
}

export interface Tracing {
  /**
   * Runs `work` in a new span, the active one for everything `work` awaits (a child of the active
   * span, unless `root`); the span ends when `work` settles, failed when it throws.
   */
  inSpan<T>(name: string, options: SpanOptions, work: (span: TraceSpan) => Promise<T>): Promise<T>
  /** Marks a span failed, for an outcome that throws nothing (a 5xx answered, a delivery the bot refused). */
  fail(span: TraceSpan, reason: string): void
  /** The W3C trace context headers (traceparent, tracestate) of the active span, for a request that continues its trace. */
  contextHeaders(): Record<string, string>
  /** Exports the spans still buffered, then stops. */
  shutdown(): Promise<void>
}
