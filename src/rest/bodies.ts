/** A resource body without its null fields: the spec leaves optional fields out rather than null. */
export function compact<T extends Record<string, unknown>>(resource: T): { [K in keyof T]: Exclude<T[K], null> } {
  const body: Record<string, unknown> = {}
  for (const key in resource) if (resource[key] !== null) body[key] = resource[key]
  return body as { [K in keyof T]: Exclude<T[K], null> }
}

/** A message body: compact, and so is its feedback (a comment that is not set is left out). */
export function compactMessage<T extends { feedback: Record<string, unknown> | null }>(message: T) {
  const body = compact(message)
  return message.feedback ? { ...body, feedback: compact(message.feedback) } : body
}

interface Connection<TNode> {
  edges: { node: TNode }[]
  pageInfo: { hasNextPage: boolean; endCursor: string | null }
}

export const nodes = <TNode extends Record<string, unknown>>(connection: Connection<TNode>) => connection.edges.map((edge) => compact(edge.node))

/** `meta.nextToken` is the connection's endCursor, and is left out on the last page. */
export const toMeta = ({ pageInfo }: Connection<unknown>): { nextToken?: string } =>
  pageInfo.hasNextPage && pageInfo.endCursor ? { nextToken: pageInfo.endCursor } : {}
