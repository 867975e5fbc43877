import { timingSafeEqual } from 'node:crypto'
import type { AgentRow } from '../db/schema.ts'
import type { Store } from '../db/store.ts'
import { agentUserId } from './agent-users.ts'
import { now } from './clock.ts'
import type { AdminContext } from './context.ts'
import type { BotInbox } from './bots/delivery/inbox.ts'
import { type ErrorType, invalidPayload, notFound, unauthorized } from './errors.ts'
import { newId, newSecret } from './ids.ts'
import type { SignalPublisher } from './signals.ts'
import { hashToken } from './tenancy.ts'

/*
 * Agents (issue 52; docs/guides/handoff.md): people an administrator lets answer the users of the
 * workspace's bots in their place. Each has its own key, `agk_` and 256 random bits, shown once
 * and stored as a SHA-256 digest (as admin tokens and bot API keys are: a random secret needs no
 * slow hash). It opens the agent API (/v1/agent/…) and nothing else; no other credential opens it.
 */

export type AgentRole = AgentRow['role']
export const agentRoles = ['agent', 'supervisor'] as const satisfies readonly AgentRole[]

/** What an agent verb runs with: the agent its key opened, in its workspace. */
export interface AgentContext {
  store: Store
  agent: AgentRow
  signals: SignalPublisher
  bots: BotInbox
  /** Told every action the agent attempts, done or refused (the access log's `agent action` lines). */
  actions?: (action: AgentAction) => void
  handoffs?: HandoffObserver
}

/** Told how handoffs go (metrics). */
export interface HandoffObserver {
  /** How long a handoff waited, from its request, for its first agent reply: once that reply committed. */
  firstAgentReply(seconds: number): void
}

/**
 * One agent action as the access log records it: who (the agent), what (the agent API operation),
 * on which conversation, and how it ended (`ok`, or the error type it was refused with). Never what
 * was written: no message text, no note, no key.
 */
export interface AgentAction {
  agentId: string
  action: string
  botId?: string
  conversationId?: string
  /** A transfer's recipient. */
  toAgentId?: string
  outcome: 'ok' | ErrorType
}

/** An agent as the API shows it: never its key's digest. */
export type Agent = Omit<AgentRow, 'keyHash'>

export const shownAgent = ({ keyHash: _, ...agent }: AgentRow): Agent => agent

const maxNameLength = 256
export const maxAgentsListed = 1000

function checkName(name: string): string {
  const trimmed = name.trim()
  if (trimmed === '' || trimmed.length > maxNameLength) throw invalidPayload(`name must be 1-${maxNameLength} characters, not blank`)
  return trimmed
}

function checkRole(role: string | null | undefined): AgentRole {
  if (role == null) return 'agent'
  if (!(agentRoles as readonly string[]).includes(role)) throw invalidPayload(`role must be one of ${agentRoles.map((r) => `"${r}"`).join(', ')}`)
  return role as AgentRole
}

/** A new agent of the workspace, with its key: `key` is shown this once. */
export function createAgent({ ctx, input }: { ctx: AdminContext; input: { name: string; role?: string | null } }): Promise<{ agent: Agent; key: string }> {
  const name = checkName(input.name)
  const role = checkRole(input.role)
  return ctx.store.write(async (q) => {
    const key = `agk_${newSecret(32)}`
    const at = now()
    const row: AgentRow = { id: `agt_${newId()}`, workspaceId: ctx.workspaceId, name, role, keyHash: hashToken(key), createdAt: at, updatedAt: at }
    await q.agents.insert(row)
    return { agent: shownAgent(row), key }
  })
}

/** The workspace's agents, oldest first. */
export function listAgents({ ctx }: { ctx: AdminContext }): Promise<Agent[]> {
  return ctx.store.read(async (q) => (await q.agents.list(ctx.workspaceId, maxAgentsListed)).map(shownAgent))
}

/** The name a deleted agent's messages are shown under. */
export const formerAgentName = 'Former agent'

/**
 * The agent and its key go; the conversations it holds stay as they are (a supervisor may take
 * them). Its messages stay in the users' conversations (they are those conversations' records) but
 * no longer name the person: its user in each of the workspace's chat integrations is renamed
 * `Former agent`, and the log of signals forgets its participant_added (which named it). Its notes stay, by its id.
 */
export function deleteAgent({ ctx, id }: { ctx: AdminContext; id: string }): Promise<void> {
  return ctx.store.write(async (q) => {
    if (!(await q.agents.delete(ctx.workspaceId, id))) throw notFound('Agent', id)
    await q.agents.renameUsers(ctx.workspaceId, agentUserId(id), formerAgentName, now())
    // The log of signals told of the agent joining by name: a listener resuming from before hears it no more.
    await q.signalLog.forgetParticipant(ctx.workspaceId, agentUserId(id))
  })
}

/**
 * Opens the agent API for a request: the key is looked up by its digest. A key of another kind (an
 * admin token, a bot API key, a user key) is no agent's: every failure reads the same.
 */
export async function authenticateAgent(store: Store, key: string | undefined): Promise<AgentRow> {
  const denied = unauthorized('a valid agent key (Authorization: Bearer agk_…) is required')
  if (!key?.startsWith('agk_')) throw denied
  const digest = hashToken(key)
  const row = await store.read((q) => q.agents.byHash(digest))
  if (!row || !timingSafeEqual(Buffer.from(row.keyHash), Buffer.from(digest))) throw denied
  return row
}
