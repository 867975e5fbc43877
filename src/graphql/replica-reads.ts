import { type DocumentNode, type ExecutionArgs, GraphQLError, Kind, type SelectionSetNode } from 'graphql'
import type { Plugin } from 'graphql-yoga'
import { operationOf } from './operation.ts'

/** What a read replica may serve of one API, by name. */
export interface ReplicaReads {
  /** REST operations (each runs the GraphQL query of its name, selecting only `rootFields`). */
  operations: readonly string[]
  /** Query root fields: a GraphQL query selecting these only (and `__typename`, introspection). */
  rootFields: readonly string[]
}

/**
 * The one table of what a read replica (http/read-replicas.ts) may serve: reads that never write.
 * The main thread hands a replica the REST operations named here and the GraphQL POSTs of queries
 * only (onlyQueries, which reads no more than the body's bytes); the replica then runs a query only when every root field it selects is named here, and hands
 * anything else back. The bot API is absent: a bot's calls hold its delivery's timeout open on the
 * main thread. test/server/replica-reads.test.ts runs every name on a replica that refuses writes.
 */
export const replicaReads = {
  chat: {
    operations: ['hello', 'getUser', 'getConversation', 'listConversations', 'getMessage', 'listMessages', 'getParticipant', 'listParticipants', 'getEvent'],
    rootFields: ['me', 'conversation', 'conversations', 'message', 'event', 'node', 'nodes'],
  },
  admin: {
    operations: ['listBots', 'getBot', 'getBotLogs', 'listBotApiKeys', 'listBotUsers', 'listBotConversations', 'exportBotUser', 'listAgents'],
    rootFields: ['bots', 'bot', 'botLogs', 'botApiKeys', 'botUsers', 'botConversations', 'botUserExport', 'agents', 'node', 'nodes'],
  },
} as const satisfies Record<string, ReplicaReads>

/**
 * Whether a GraphQL request body holds queries only. A document names `mutation` and `subscription`
 * as keywords, and JSON can only hide a letter of them in a `\u` escape: a body with none of the
 * three can only be queries. A false "no" (a query that says "mutation" in a string) costs nothing
 * but a replica.
 */
export const onlyQueries = (body: Uint8Array) =>
  !/mutation|subscription|\\u/.test(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('latin1'))

/** Every root field a selection set selects, through its fragments (spread or inline). */
function selectedRootFields(selectionSet: SelectionSetNode, document: DocumentNode, seen = new Set<string>()): string[] {
  return selectionSet.selections.flatMap((selection) => {
    if (selection.kind === Kind.FIELD) return [selection.name.value]
    if (selection.kind === Kind.INLINE_FRAGMENT) return selectedRootFields(selection.selectionSet, document, seen)
    const name = selection.name.value
    if (seen.has(name)) return []
    seen.add(name)
    const fragment = document.definitions.find((d) => d.kind === Kind.FRAGMENT_DEFINITION && d.name.value === name)
    return fragment?.kind === Kind.FRAGMENT_DEFINITION ? selectedRootFields(fragment.selectionSet, document, seen) : []
  })
}

/** Whether a replica may run this operation: a query whose every root field the table names. */
export function servedOnReplica(reads: ReplicaReads, args: Pick<ExecutionArgs, 'document' | 'operationName'>): boolean {
  const operation = operationOf(args)
  if (operation?.operation !== 'query') return false
  return selectedRootFields(operation.selectionSet, args.document).every((field) => field.startsWith('__') || reads.rootFields.includes(field))
}

/**
 * servedOnReplica, decided once per document and operation name: yoga's parser cache hands the same
 * document object for the same query text, and a replica asks of every operation it runs.
 */
function servedOnReplicaOnce(reads: ReplicaReads): (args: Pick<ExecutionArgs, 'document' | 'operationName'>) => boolean {
  const decided = new WeakMap<DocumentNode, Map<string, boolean>>()
  return (args) => {
    let byName = decided.get(args.document)
    if (!byName) decided.set(args.document, (byName = new Map()))
    const name = args.operationName ?? ''
    let served = byName.get(name)
    if (served === undefined) byName.set(name, (served = servedOnReplica(reads, args)))
    return served
  }
}

/** What a replica is told to hand a request back to the main thread by (read-replica.ts). */
export interface ReplicaThread {
  handBack(): void
}

/** On a replica: an operation the table does not name is handed back, unrun. */
export const useReplicaReads = (reads: ReplicaReads, thread: ReplicaThread): Plugin => {
  const served = servedOnReplicaOnce(reads)
  const refuse = ({ args, setResultAndStopExecution }: { args: ExecutionArgs; setResultAndStopExecution(result: unknown): void }) => {
    if (served(args)) return
    thread.handBack()
    setResultAndStopExecution({ errors: [new GraphQLError('a read replica serves reads only')] })
  }
  return { onExecute: refuse as never, onSubscribe: refuse as never }
}
