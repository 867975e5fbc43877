import type { GraphiQLOptions } from 'graphql-yoga'

/**
 * GraphiQL with its scripts, styles and editor workers inlined in the page (yoga's default loads them
 * from a CDN, which leaves the page blank on a machine without internet). The bundle is a 9 MB module:
 * it is loaded on the first page request, not when the server starts.
 */
async function renderGraphiQL(options: GraphiQLOptions): Promise<string> {
  const { renderGraphiQL: render } = await import('@graphql-yoga/render-graphiql')
  return render(options)
}

/**
 * The GraphiQL page of a scope. It names no endpoint: GraphiQL posts to the address it was opened at
 * (`location.pathname`), so that one page serves every chat integration's /{webhookId}/graphql.
 */
export const graphiqlPage = (scope: keyof typeof graphiqlWelcome): Promise<string> =>
  renderGraphiQL({ title: 'Confab', defaultQuery: graphiqlWelcome[scope], defaultEditorToolsVisibility: 'headers' })

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
# then fetch the schema again (the ↻ button at the bottom left, or Shift-Ctrl-R): without them
# this API answers nothing, its schema included.
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
