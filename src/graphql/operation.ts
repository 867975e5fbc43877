import { type ExecutionArgs, Kind, type OperationDefinitionNode } from 'graphql'

/** The operation of a document that runs: the named one, or the only one. */
export const operationOf = ({ document, operationName }: Pick<ExecutionArgs, 'document' | 'operationName'>): OperationDefinitionNode | undefined => {
  let found: OperationDefinitionNode | undefined
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue
    if (operationName ? definition.name?.value === operationName : !found) found = definition
  }
  return found
}

/** The root fields an operation selects (fragments spread at the root are not followed). */
export const rootFields = (operation: OperationDefinitionNode): string[] =>
  operation.selectionSet.selections.flatMap((selection) => (selection.kind === Kind.FIELD ? [selection.name.value] : []))

/** An operation as the metrics label it: its kind and root fields, bounded by the schema (a batch of many as its first three). */
export function rootFieldsLabel(kind: string, fields: readonly string[]): string {
  const unique = [...new Set(fields)].sort()
  return `${kind} ${unique.length > 3 ? `${unique.slice(0, 3).join('+')}+…` : unique.join('+')}`
}
