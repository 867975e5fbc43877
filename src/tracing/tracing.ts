// OpenTelemetry traces, off unless OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)
// is set. Traced code asks `tracing()`, which imports nothing of OpenTelemetry: when tracing is off no
// OpenTelemetry module is even loaded (open-telemetry.ts imports them, when started), and each traced
// place costs one check.
import type { Tracing } from './tracer.ts'

let started: Tracing | undefined

/** The process's tracing: undefined unless startTracing found an OTLP endpoint. */
export const tracing = (): Tracing | undefined => started

/** Whether the environment asks for traces (OpenTelemetry's own variables, which its SDK reads). */
const tracesWanted = (env: NodeJS.ProcessEnv): boolean =>
  env.OTEL_SDK_DISABLED?.toLowerCase() !== 'true' && Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim())

/**
 * Starts tracing when process.env asks for it, before the server is made (the GraphQL plugin and the
 * store are traced as they are made). Returns undefined, having imported nothing, otherwise.
 */
export async function startTracing(): Promise<Tracing | undefined> {
  if (started || !tracesWanted(process.env)) return started
  const { openTelemetry } = await import('./open-telemetry.ts')
  started = openTelemetry()
  return started
}
