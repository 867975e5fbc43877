import type { ChatIntegrationRow } from '../db/schema.ts'
import type { After, Queries, Store } from '../db/store.ts'
import { now } from './clock.ts'
import type { DomainError } from './errors.ts'
import { removeFileBytes } from './file-bytes.ts'
import type { SignalPublisher } from './signals.ts'

type UnitQueries = Queries

/**
 * Inside a unit: deletes the user and every row that holds what it said or what was said to it —
 * the conversations it owns, whole (participants, messages, events, files, deliveries, agents'
 * notes and handoff requests), the handoff requests of the others it is in, its own
 * messages, events, files and participations elsewhere, and the bot events, bot logs, deliveries
 * and bot state that name it or those conversations — and records that it was deleted, so that a
 * key naming it re-creates nothing. Once committed, the files' bytes go, the listeners of the
 * conversations it owned end, and the others hear that it left. False when there was no such user.
 */
export async function eraseUser(
  { store, signals }: { store: Store; signals: SignalPublisher },
  q: UnitQueries,
  after: After,
  integration: ChatIntegrationRow,
  userId: string,
): Promise<boolean> {
  const integrationId = integration.id
  const scope = { integrationId, botId: integration.botId }
  if (!(await q.users.find(integrationId, userId))) return false
  const joined = await q.participants.conversationsOf(integrationId, userId)
  const owned = await q.erasure.ownedConversations(integrationId, userId)
  // One statement after another: a unit of work is one connection's transaction.
  const fileIds = await q.files.idsOfUser(integrationId, userId)
  for (const conversationId of owned) {
    fileIds.push(...(await q.files.idsOfConversation(integrationId, conversationId)))
    await q.erasure.conversationTraces(scope, conversationId)
  }
  await q.erasure.userTraces(scope, userId)
  // A handoff's message history holds copies of what was said (the owned ones go with their conversations).
  for (const { conversationId, ownerId } of joined) if (ownerId !== userId) await q.handoffRequests.delete(integrationId, conversationId)
  await q.users.delete(integrationId, userId)
  await q.erasure.bury(integrationId, userId, now())
  after(() => {
    removeFileBytes(store, fileIds)
    for (const conversationId of owned) signals.publish(integrationId, { type: 'conversation_deleted', conversationId })
    for (const { conversationId, ownerId } of joined) {
      if (ownerId !== userId) signals.publish(integrationId, { type: 'participant_removed', conversationId, participantId: userId })
    }
  })
  return true
}

/**
 * Inside a unit: refuses to create a user whose id was deleted (docs/reference/decisions.md), whoever
 * asks, so that no key that named it — the server's own key is the same bytes for the same id — ever
 * opens anything again.
 */
export async function refuseDeletedUserId(q: UnitQueries, integrationId: string, id: string, refusal: (message: string) => DomainError): Promise<void> {
  if (await q.erasure.burial(integrationId, id)) {
    throw refusal(`user "${id}" was deleted; its id cannot be used again and its keys open nothing`)
  }
}

/** Inside a unit: deletes the conversation with its participants, messages, events, files, deliveries, bot events, logs and state. */
export async function eraseConversation(
  { store, signals }: { store: Store; signals: SignalPublisher },
  q: UnitQueries,
  after: After,
  integration: ChatIntegrationRow,
  conversationId: string,
): Promise<void> {
  const fileIds = await q.files.idsOfConversation(integration.id, conversationId)
  await q.erasure.conversationTraces({ integrationId: integration.id, botId: integration.botId }, conversationId)
  await q.conversations.delete(integration.id, conversationId)
  after(() => {
    removeFileBytes(store, fileIds)
    signals.publish(integration.id, { type: 'conversation_deleted', conversationId })
  })
}
