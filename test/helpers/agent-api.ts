import { expect } from 'vitest'
import { ADMIN_TOKEN, WORKSPACE_ID } from './app.ts'

export interface Called {
  status: number
  body: any
}

/** A JSON call to a server at `baseUrl`: a bearer credential (an agent key, an admin token, a bot key), the path from the root. */
export function jsonCaller(baseUrl: string) {
  return async function call(key: string | undefined, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Called> {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        ...(key === undefined ? {} : { authorization: `Bearer ${key}` }),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const raw = await res.text()
    return { status: res.status, body: raw ? JSON.parse(raw) : undefined }
  }
}

export type Call = ReturnType<typeof jsonCaller>

/** An agent made by an administrator (POST /v1/admin/agents), with the key shown once. */
export async function createAgent(call: Call, name: string, role?: string, admin = { token: ADMIN_TOKEN, workspaceId: WORKSPACE_ID }) {
  const res = await call(admin.token, 'POST', '/v1/admin/agents', { name, ...(role ? { role } : {}) }, { 'x-workspace-id': admin.workspaceId })
  expect(res.status).toBe(200)
  return { id: res.body.agent.id as string, key: res.body.key as string }
}
