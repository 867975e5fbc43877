import type { Store } from '../db/store.ts'
import type { Tracing } from './tracer.ts'

/**
 * A span for each unit of work, from its submission to its commit being durable (a group commit's
 * wait included), and one for each read: the SQL of a request, in its trace, without a span per
 * statement. The store is changed in place: it stays the engine's own object, which the server
 * tells apart (SQLite's read replicas).
 */
export function traceStore(store: Store, traces: Tracing, system: 'postgresql' | 'sqlite'): void {
  const write = store.write.bind(store)
  const read = store.read.bind(store)
  store.write = (work) => traces.inSpan('unit of work', { attributes: { 'db.system.name': system } }, () => write(work))
  store.read = (work) => traces.inSpan('read', { attributes: { 'db.system.name': system } }, () => read(work))
}
