/**
 * What the metrics count a request by: its transport (the kind of mount it landed on) and its
 * operation (the REST route's operation, the GraphQL root fields, or the mount's pattern). Every
 * value comes from the route table or the schema, never from a path or a client's words.
 */
export interface RequestLabels {
  transport: string
  operation: string
  /** The route's pattern (`/:webhookId/conversations/:id`), which names the request's trace span; not a metric label. */
  route?: string
}

/** The labels of the responses the app made, until the listener that sends them has read them. */
const labelled = new WeakMap<Response, RequestLabels>()

export const labelResponse = (response: Response, labels: RequestLabels): void => void labelled.set(response, labels)

export const labelsOf = (response: Response): RequestLabels | undefined => labelled.get(response)
