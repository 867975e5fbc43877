import { Client } from '@botpress/client'
import { expect } from 'vitest'
import { createAgent as createAgentWith, jsonCaller } from './agent-api.ts'
import { ADMIN_TOKEN, WORKSPACE_ID } from './app.ts'
import { PING } from './listening.ts'
import { SseReader } from './sse.ts'

/*
 * The agent side of a handoff (docs/guides/handoff.md) against a served app: agents an administrator
 * makes, the agent API called with their keys, and a bot with its own API key that hands a
 * conversation off (hitl:startHitl).
 */

export interface AgentKey {
  id: string
  key: string
}

/** Calls of a served app (`baseUrl`): any path with a bearer key; agents made; the agent API as an agent. */
export function agentDesk(baseUrl: string) {
  const call = jsonCaller(baseUrl)

  /** A new agent of the workspace (createAgent), with the key shown once. */
  const createAgent = (name: string, role?: string, admin = { token: ADMIN_TOKEN, workspaceId: WORKSPACE_ID }): Promise<AgentKey> =>
    createAgentWith(call, name, role, admin)

  const asAgent = (agent: AgentKey, method: string, path: string, body?: unknown) => call(agent.key, method, `/v1/agent${path}`, body)

  /** An agent API feed (…/listen) opened with the agent's key. */
  const listen = (agent: AgentKey, path: string) => fetch(`${baseUrl}/v1/agent${path}`, { headers: { authorization: `Bearer ${agent.key}` } })

  return { call, createAgent, asAgent, listen }
}

/** The bot `botId` as @botpress/client, with a new API key of its own (what hands a conversation off: hitl:startHitl). */
export async function botClient(baseUrl: string, botId: string): Promise<Client> {
  const admin = new Client({ apiUrl: baseUrl, token: ADMIN_TOKEN, workspaceId: WORKSPACE_ID })
  const { value } = await admin.createBotApiKey({ botId, note: 'hands conversations off' })
  return new Client({ apiUrl: baseUrl, token: value, botId, retry: { retries: 0 } })
}

/** An agent API feed's messages, one JSON object per read (pings skipped; null once it has ended). */
export function feedMessages(response: Response) {
  expect(response.status).toBe(200)
  const reader = new SseReader(response.body as ReadableStream<Uint8Array>)
  return {
    next: async () => JSON.parse((await reader.message((b) => b.data === PING))?.data ?? 'null'),
    close: () => reader.cancel(),
  }
}
