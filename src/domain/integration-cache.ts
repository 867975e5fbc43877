import type { ChatIntegrationRow } from '../db/schema.ts'
import type { IntegrationVersionQueries, Participation, Queries, Store } from '../db/store.ts'
import { findChatIntegration, unknownWebhook } from './tenancy.ts'

/*
 * On a database other instances share (PostgreSQL) a chat request used to read its chat integration before anything
 * else: one round trip of the three a page or a message took. Another instance may change the
 * integration at any time (a personal key set, a key rotated, the bot deleted), and what it changed
 * must hold everywhere at once. So an instance keeps the integrations it served with their versions
 * (IntegrationVersionQueries), and a request opened with one from memory checks it in its first
 * statement: the participation reads the version beside the conversation, any other first
 * statement is preceded by a read of the version alone (a round trip, as before). A version that
 * moved on is read again with the integration, and the request goes on with it: its user key
 * verified again with the new keys (401 if it no longer verifies), 404 if the integration is gone.
 *
 * SQLite's store keeps its own exact copy (one process writes), so none of this runs there: wiring
 * chooses integrationsOfTheEngine for it, integrationsKeptWithVersions where the database is shared.
 */

interface Known {
  integration: ChatIntegrationRow
  version: string
}

/** At most this many integrations are kept per store (only integrations that exist are). */
const capacity = 10_000

const known = new WeakMap<Store, Map<string, Known>>()

const knownOf = (store: Store): Map<string, Known> => {
  let byWebhook = known.get(store)
  if (!byWebhook) known.set(store, (byWebhook = new Map()))
  return byWebhook
}

const remember = (store: Store, webhookId: string, entry: Known) => {
  const byWebhook = knownOf(store)
  byWebhook.delete(webhookId)
  byWebhook.set(webhookId, entry)
  if (byWebhook.size > capacity) byWebhook.delete(byWebhook.keys().next().value as string)
}

/** What a chat request opens with: its integration, and the version still to check when it came from memory. */
export interface OpenedIntegration {
  integration: ChatIntegrationRow
  unchecked?: string
}

/**
 * How chat requests find their integration, chosen once by wiring (src/wiring.ts) from what the
 * engine declares: `open` gives the integration a request names. `fromMemory`: the request may take
 * it from memory, as long as it runs on `checkedStore` (which checks the version in its first
 * statement) and decides nothing from the integration before that statement (a request with a user
 * key, whose verbs all begin with a statement; createUser, without one, decides from its mode first).
 */
export interface ChatIntegrations {
  open(store: Store, webhookId: string, fromMemory: boolean): Promise<OpenedIntegration>
}

/** Where one process writes the database (SQLite): its engine keeps its own exact copy, read from there. */
export const integrationsOfTheEngine: ChatIntegrations = {
  open: async (store, webhookId) => ({ integration: await findChatIntegration(store, webhookId) }),
}

/** Where other processes may change an integration (PostgreSQL): kept here with its version, checked by each request. */
export const integrationsKeptWithVersions: ChatIntegrations = {
  async open(store, webhookId, fromMemory) {
    const kept = fromMemory ? knownOf(store).get(webhookId) : undefined
    if (kept) return { integration: kept.integration, unchecked: kept.version }
    const found = await store.read((q) => versionsOf(q).byWebhook(webhookId))
    if (!found) throw unknownWebhook(webhookId)
    remember(store, webhookId, found)
    return { integration: found.integration }
  },
}

/** The request whose integration a first statement checks (its context): given the integration read again, when it changed. */
export interface CheckedRequest {
  integration: ChatIntegrationRow
}

/** Verifies the request's user key again with the integration's keys now (a 401 if it no longer verifies). */
export type Reverify = (integration: ChatIntegrationRow) => Promise<void>

/** The check of one request, shared by its statements until one of them has made it. */
class IntegrationCheck {
  private done = false

  constructor(
    private readonly store: Store,
    private readonly request: CheckedRequest,
    private readonly version: string,
    private readonly reverify: Reverify,
  ) {}

  get pending(): boolean {
    return !this.done
  }

  /** The version a statement read beside its own: the same, the check is made; another, the integration is read again. */
  async saw(q: Queries, version: string | undefined): Promise<void> {
    if (this.done) return
    if (version === undefined) version = await versionsOf(q).version(this.request.integration.id)
    if (version !== this.version) await this.reread(q)
    this.done = true
  }

  private async reread(q: Queries): Promise<void> {
    const { webhookId, id } = this.request.integration
    const fresh = await versionsOf(q).byWebhook(webhookId)
    if (fresh) remember(this.store, webhookId, fresh)
    else knownOf(this.store).delete(webhookId)
    // Gone, or another integration under the same webhook id: the one this request was opened for is gone.
    if (!fresh || fresh.integration.id !== id) throw unknownWebhook(webhookId)
    await this.reverify(fresh.integration)
    this.request.integration = fresh.integration
  }
}

const versionsOf = (q: Queries): IntegrationVersionQueries => q.integrationVersions

/**
 * `store` for a request opened with an integration from memory (`version`): until one of its
 * statements has checked the version, each statement is preceded by that check, or makes it itself
 * (the participation, which reads the version in the same statement).
 */
export function checkedStore(store: Store, request: CheckedRequest, version: string, reverify: Reverify): Store {
  const check = new IntegrationCheck(store, request, version, reverify)
  const checked = (q: Queries): Queries => (check.pending ? checkingQueries(q, check) : q)
  const made: Store = {
    files: store.files,
    check: () => store.check(),
    close: () => store.close(),
    read: (work) => store.read((q) => work(checked(q))),
    write: (work) => store.write((q, after) => work(checked(q), after)),
    writeStatement: (work) => store.writeStatement((q) => work(checked(q))),
    background: () => store.background(),
  }
  pendingChecks.set(made, { check, store })
  return made
}

const pendingChecks = new WeakMap<Store, { check: IntegrationCheck; store: Store }>()

/**
 * Makes the check of a request that ran no statement (a connection check, `{ __typename }`), before
 * it is answered: what it answers must hold for the integration as it is (404 once it is gone).
 */
export async function checkIntegrationIfUnchecked(store: Store): Promise<void> {
  const pending = pendingChecks.get(store)
  if (pending?.check.pending) await pending.store.read((q) => pending.check.saw(q, undefined))
}

/** Whether the store is a request's whose integration is still to be checked (see checkIntegrationIfUnchecked). */
export const integrationUnchecked = (store: Store): boolean => pendingChecks.get(store)?.check.pending === true

/** `q` whose statements each make the check first while it is pending; the participations (with a page or not) make it themselves. */
function checkingQueries(q: Queries, check: IntegrationCheck): Queries {
  const conversations: Partial<Queries['conversations']> = {
    participation: async (integrationId, conversationId, userId): Promise<Participation> => {
      if (!check.pending) return q.conversations.participation(integrationId, conversationId, userId)
      const { integrationVersion, ...found } = await versionsOf(q).participation(integrationId, conversationId, userId)
      await check.saw(q, integrationVersion)
      return found
    },
    participationWithPage: async (integrationId, conversationId, userId, window) => {
      if (!check.pending) return q.conversations.participationWithPage(integrationId, conversationId, userId, window)
      const { integrationVersion, ...found } = await versionsOf(q).participationWithPage(integrationId, conversationId, userId, window)
      await check.saw(q, integrationVersion)
      return found
    },
    participations: async (integrationId, conversationIds, userId) => {
      if (!check.pending) return q.conversations.participations(integrationId, conversationIds, userId)
      const { found, integrationVersion } = await versionsOf(q).participations(integrationId, conversationIds, userId)
      await check.saw(q, integrationVersion)
      return found
    },
  }
  const groups = new Map<PropertyKey, unknown>()
  return new Proxy(q, {
    get(target, name) {
      const group = (target as unknown as Record<PropertyKey, unknown>)[name]
      if (name === 'integrationVersions' || typeof group !== 'object' || group === null) return group
      let made = groups.get(name)
      if (made === undefined) {
        made = checkingGroup(q, group, check, name === 'conversations' ? conversations : undefined)
        groups.set(name, made)
      }
      return made
    },
  })
}

/**
 * A group of queries whose calls make the check first while it is pending (or as `own` makes it).
 * Each statement is wrapped when first asked for: a request calls a few of a group's statements, and
 * wrapping all of every group it touched was a twentieth of what a createMessage allocated.
 */
function checkingGroup<G extends object>(q: Queries, group: G, check: IntegrationCheck, own?: object): G {
  const wrapped = new Map<PropertyKey, unknown>(own && Object.entries(own))
  return new Proxy(group, {
    get(target, name) {
      const statement = (target as Record<PropertyKey, unknown>)[name]
      if (typeof statement !== 'function') return statement
      let made = wrapped.get(name)
      if (made === undefined) {
        made = async (...args: unknown[]) => {
          if (check.pending) await check.saw(q, undefined)
          return (statement as (...a: unknown[]) => unknown).apply(group, args)
        }
        wrapped.set(name, made)
      }
      return made
    },
  })
}
