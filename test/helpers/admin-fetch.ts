import { ADMIN_TOKEN, WORKSPACE_ID } from './app.ts'

/** One call of the admin REST API of a listening Confab, as the bootstrap workspace's operator: its status and JSON body. */
export async function adminFetch(baseUrl: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${baseUrl}/v1/admin${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'x-workspace-id': WORKSPACE_ID, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  return { status: response.status, body: await response.json() }
}

/** adminFetch on the Confab `current()` returns, for a file whose server changes from test to test. */
export const adminFetchOn = (current: () => { baseUrl: string }) => (method: string, path: string, body?: unknown) =>
  adminFetch(current().baseUrl, method, path, body)
