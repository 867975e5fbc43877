import { Kind, type OperationDefinitionNode, parse } from 'graphql'
import type { GraphiQLOptions, Plugin } from 'graphql-yoga'

/**
 * GraphiQL with its scripts, styles and editor workers inlined in the page (yoga's default loads them
 * from a CDN, which leaves the page blank on a machine without internet). The bundle is a 9 MB module:
 * it is loaded on the first page request, not when the server starts.
 */
export async function renderGraphiQL(options: GraphiQLOptions): Promise<string> {
  const { renderGraphiQL: render } = await import('@graphql-yoga/render-graphiql')
  return render(options)
}

/**
 * What each GraphiQL opens with: Confab's own words on the credentials it needs (in the query
 * editor, as comments), and an empty headers editor. A placeholder header would be sent with the
 * schema fetch and refused with 401 before the user typed anything.
 */
export const graphiqlWelcome = {
  chat: `# Confab: the chat GraphQL API of one chat integration (the webhook id in this page's address).
#
# Every operation but createUser acts for a user: put its key in the Headers tab below,
#   {"x-user-key": "<user key>"}
# No key yet? Run this first; the key it answers is the one to put there.
#
#   mutation { createUser(input: { name: "Ada" }) { user { userId } key } }
#
# With the key set, this asks who you are (Ctrl-Enter runs it):
{
  me {
    userId
    name
  }
}
`,
  admin: `# Confab: the administration GraphQL API of one workspace.
#
# Put the admin token and the workspace id in the Headers tab below:
#   {"authorization": "Bearer <admin token>", "x-workspace-id": "<workspace id>"}
# The first start printed both; \`npm run confab -- credentials\` shows the workspace id again
# and issues a new admin token.
#
# With them set, this lists the workspace's bots (Ctrl-Enter runs it):
{
  bots(first: 10) {
    edges {
      node {
        id
        name
      }
    }
  }
}
`,
} as const

/**
 * Whether a query only asks for the schema (every operation's fields are __schema, __type or
 * __typename): what GraphiQL sends before any credential is typed, answered without one.
 */
export function asksOnlyForTheSchema(query: unknown): boolean {
  if (typeof query !== 'string') return false
  try {
    const operations = parse(query).definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)
    if (operations.length === 0) return false
    // A fragment spread at the root could name any field: only plain __ fields count.
    return operations.every(
      (operation) =>
        operation.operation === 'query' &&
        operation.selectionSet.selections.every((selection) => selection.kind === Kind.FIELD && selection.name.value.startsWith('__')),
    )
  } catch {
    return false
  }
}

// The page is one inline script that starts Monaco's editor workers from blob: URLs; it loads
// nothing else and talks only to its own origin, so the browser itself keeps it offline.
const contentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'unsafe-inline'",
  'worker-src blob:',
  "style-src 'unsafe-inline'",
  'font-src data:',
  'img-src data:',
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ')

/** The security headers of the GraphiQL page, the only HTML yoga answers with. */
export const useGraphiQLHeaders = (): Plugin => ({
  onResponse({ response }) {
    if (!response.headers.get('content-type')?.startsWith('text/html')) return
    response.headers.set('content-security-policy', contentSecurityPolicy)
    response.headers.set('x-content-type-options', 'nosniff')
    response.headers.set('referrer-policy', 'no-referrer')
  },
})
