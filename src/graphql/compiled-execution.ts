import { getVariableValues } from '@graphql-tools/executor'
import {
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  getOperationAST,
  GraphQLError,
  Kind,
  type OperationDefinitionNode,
  OperationTypeNode,
  type Source,
  visit,
} from 'graphql'
import type { CompiledQuery } from 'graphql-jit'
import type { Plugin } from 'graphql-yoga'
import type { Logger } from 'pino'

/** As yoga's own executor (graphql-tools) does: a request whose variables are refused is refused as a whole (400). */
const refusesRequest = (error: GraphQLError): GraphQLError =>
  Object.defineProperty(error, 'extensions', {
    value: { ...error.extensions, http: { ...(error.extensions?.http as object | undefined), status: 400 } },
  })

/** Offsets of the line starts of a document's source, to turn a `{line, column}` back into a position. */
const lineStarts = new WeakMap<Source, number[]>()

function positionOf(source: Source, { line, column }: { line: number; column: number }): number {
  let starts = lineStarts.get(source)
  if (!starts) {
    starts = [0]
    for (let i = 0; i < source.body.length; i++) if (source.body[i] === '\n') starts.push(i + 1)
    lineStarts.set(source, starts)
  }
  return (starts[line - 1] ?? 0) + column - 1
}

/**
 * An error of a compiled query as graphql-js would raise it: graphql-jit's own GraphQLError has
 * locations but no AST nodes (which yoga needs to keep them when it serializes), and no
 * `extensions` when its cause has none.
 */
function asGraphQLError(error: GraphQLError, document: DocumentNode): GraphQLError {
  const source = document.loc?.source
  return new GraphQLError(error.message, {
    source,
    positions: source && error.locations ? error.locations.map((location) => positionOf(source, location)) : undefined,
    path: error.path,
    originalError: error.originalError ?? undefined,
    extensions: error.extensions ?? undefined,
  })
}

/**
 * The variables an operation gives as fields of input object literals (`input: {url: $url}`):
 * graphql-jit sets such a field to null when its variable is not given, where GraphQL leaves the
 * field out, and an update told "no url" must not clear the url. A variable with a default value
 * is never "not given".
 */
function variablesOfInputFields(document: DocumentNode, operation: OperationDefinitionNode): Set<string> {
  const names = new Set<string>()
  visit(document, {
    ObjectField: (node) => void (node.value.kind === Kind.VARIABLE && names.add(node.value.name.value)),
  })
  for (const definition of operation.variableDefinitions ?? []) {
    if (definition.defaultValue) names.delete(definition.variable.name.value)
  }
  return names
}

/** The document without the input object fields whose variables are `missing`: what GraphQL runs when they are not given. */
const withoutFieldsOf = (document: DocumentNode, missing: ReadonlySet<string>): DocumentNode =>
  visit(document, {
    ObjectField: (node) => (node.value.kind === Kind.VARIABLE && missing.has(node.value.name.value) ? null : undefined),
  })

/** Variables as GraphQL reads them: one whose value is undefined was not given (graphql-jit would pass null). */
function given(variables: Record<string, unknown> | null | undefined): Record<string, unknown> {
  const values: Record<string, unknown> = {}
  for (const name in variables) if (variables[name] !== undefined) values[name] = variables[name]
  return values
}

/**
 * Compiling costs more than interpreting once: a document is compiled the second time it runs
 * (yoga's parser cache hands the same document object again), so that a stream of one-off queries
 * never pays for it. A document known to be run again (a REST route's) is compiled on its first run.
 */
const seen = new WeakSet<DocumentNode>()

/** Marks a document as one that will run many times: it is compiled the first time it runs. */
export const runsOften = (document: DocumentNode): void => void seen.add(document)

type Compiler = typeof import('graphql-jit')

let compiler: Compiler | undefined
let loading: Promise<Compiler> | undefined

/**
 * graphql-jit, loaded on first use rather than at start-up (its import takes 60–80 ms): documents
 * run interpreted until it is there.
 */
export function loadCompiler(): Promise<Compiler> {
  loading ??= import('graphql-jit').then((loaded) => {
    compiler = loaded
    return loaded
  })
  return loading
}

/** An operation compiled, and the variants compiled for the input fields a request left out. */
interface Compiled {
  query: CompiledQuery
  inputFieldVariables: Set<string>
  /** By the names of the variables not given, comma-separated; undefined where a variant could not be compiled. */
  variants: Map<string, CompiledQuery | undefined>
}

/** Each combination of left-out fields is a compiled query: past this many, the others run interpreted. */
const maxVariants = 8

const withGraphQLErrors = (result: ExecutionResult, document: DocumentNode): ExecutionResult =>
  result.errors ? { ...result, errors: result.errors.map((error) => asGraphQLError(error, document)) } : result

/**
 * Queries and mutations run as JavaScript compiled once per document and operation (graphql-jit)
 * rather than interpreted field by field: a page of messages is a few hundred fields, and
 * interpreting them was the largest cost of listMessages. Variables are still coerced by the
 * executor yoga would use (graphql-jit's coercion knows no `@oneOf` input, MessagePayloadInput is
 * one), so that their refusals read as before. Subscriptions keep that executor, whose event
 * streams the transports are built on; so do a document's first run (unless it `runsOften`), any
 * run before graphql-jit is loaded, and a document it cannot compile.
 */
export function useCompiledExecution(log: Logger): Plugin {
  const compiled = new WeakMap<DocumentNode, Map<string, Compiled | undefined>>()

  let asked = false

  const compiledFor = (args: ExecutionArgs, operation: OperationDefinitionNode): Compiled | undefined => {
    if (!compiler) {
      if (!asked) {
        asked = true
        loadCompiler().catch((error: unknown) => log.warn({ err: error }, 'graphql-jit could not be loaded: GraphQL runs interpreted'))
      }
      return undefined
    }
    let byOperation = compiled.get(args.document)
    if (!byOperation) {
      if (!seen.has(args.document)) {
        seen.add(args.document)
        return undefined
      }
      byOperation = new Map()
      compiled.set(args.document, byOperation)
    }
    const name = args.operationName ?? ''
    if (!byOperation.has(name)) {
      const query = compile(args, args.document)
      byOperation.set(name, query && { query, inputFieldVariables: variablesOfInputFields(args.document, operation), variants: new Map() })
    }
    return byOperation.get(name)
  }

  const compile = (args: ExecutionArgs, document: DocumentNode): CompiledQuery | undefined => {
    const { compileQuery, isCompiledQuery } = compiler as Compiler
    const query = compileQuery(args.schema, document, args.operationName ?? undefined)
    if (isCompiledQuery(query)) return query
    log.debug({ errors: query.errors }, 'a GraphQL operation could not be compiled')
    return undefined
  }

  /** The query to run for these variables: the operation's, or its variant without the input fields not given. */
  const queryFor = (args: ExecutionArgs, compiled: Compiled, variables: Record<string, unknown>): CompiledQuery | undefined => {
    const missing: string[] = []
    for (const name of compiled.inputFieldVariables) if (!(name in variables)) missing.push(name)
    if (missing.length === 0) return compiled.query
    const key = missing.join(',')
    if (!compiled.variants.has(key)) {
      if (compiled.variants.size >= maxVariants) return undefined
      compiled.variants.set(key, compile(args, withoutFieldsOf(args.document, new Set(missing))))
    }
    return compiled.variants.get(key)
  }

  return {
    onExecute({ args, setExecuteFn, setResultAndStopExecution }) {
      const operation = getOperationAST(args.document, args.operationName)
      if (!operation || operation.operation === OperationTypeNode.SUBSCRIPTION) return
      const compiled = compiledFor(args, operation)
      if (!compiled) return
      const variables = given(args.variableValues)
      // Left to the other executor, which coerces the variables itself.
      const query = queryFor(args, compiled, variables)
      if (!query) return
      if (operation.variableDefinitions?.length) {
        const coerced = getVariableValues(args.schema, operation.variableDefinitions, variables, { maxErrors: 50 })
        if (coerced.errors) {
          setResultAndStopExecution({ errors: coerced.errors.map(refusesRequest) })
          return
        }
      }
      setExecuteFn(async (run) => withGraphQLErrors(await query.query(run.rootValue, run.contextValue, variables), run.document))
    },
  }
}
