import type { Plugin } from 'graphql-yoga'
import type { Tracing } from '../tracing/tracer.ts'
import { operationOf, rootFields, rootFieldsLabel } from './operation.ts'

/**
 * A span for each GraphQL execution, REST's included (one pipeline), named as the metrics label the
 * operation: its kind and root fields, names of the schema only. It wraps the execution that runs
 * (the compiled one, when there is one: it is listed last), so the units of work the resolvers run
 * are its children.
 */
export const useTracing = (traces: Tracing): Plugin => ({
  onExecute({ args, executeFn, setExecuteFn }) {
    const operation = operationOf(args)
    if (!operation) return
    const attributes = {
      'graphql.operation.type': operation.operation,
      ...(operation.name ? { 'graphql.operation.name': operation.name.value } : {}),
    }
    setExecuteFn((run) =>
      traces.inSpan(rootFieldsLabel(operation.operation, rootFields(operation)), { attributes }, async (span) => {
        const result = await executeFn(run)
        const errors = 'errors' in result ? (result.errors?.length ?? 0) : 0
        if (errors > 0) span.setAttribute('confab.graphql.errors', errors)
        return result
      }),
    )
  },
})
