import type { Run } from '../query.ts'
import type { Queries } from '../store.ts'
import { agentQueries, conversationNoteQueries } from './agents.ts'
import { botApiKeyQueries } from './bot-api-keys.ts'
import { botDeliveryQueries } from './bot-deliveries.ts'
import { botLogQueries } from './bot-logs.ts'
import { botQueries } from './bots.ts'
import { botStateQueries } from './bot-states.ts'
import { conversationTagQueries } from './conversation-tags.ts'
import { conversationQueries } from './conversations.ts'
import { botEventQueries, eventQueries } from './events.ts'
import { erasureQueries } from './erasure.ts'
import { fileQueries } from './files.ts'
import { handoffRequestQueries } from './handoff-requests.ts'
import { handoffQueries } from './handoffs.ts'
import { integrationWebhookQueries } from './integration-webhooks.ts'
import { messageQueries } from './messages.ts'
import { participationThenPage } from './participation-page.ts'
import { participantQueries } from './participants.ts'
import { retentionQueries } from './retention.ts'
import { signalLogQueries } from './signal-log.ts'
import { tenancyQueries } from './tenancy.ts'
import { userRecordQueries } from './user-records.ts'
import { userQueries } from './users.ts'

/** What an engine says itself: how it finds the deliveries that are due (see BotDeliveryQueries). */
export type EngineDeliveries = Pick<Queries['botDeliveries'], 'due' | 'claim' | 'claimFollowing' | 'nextDueAfter' | 'renew' | 'release'>

/** Every named query of the storage API, as `run` runs their shapes, with the engine's own parts (but the integration versions, each engine's own). */
export function queriesOf(run: Run, deliveries: EngineDeliveries): Omit<Queries, 'integrationVersions'> {
  const conversations = conversationQueries(run)
  const messages = messageQueries(run)
  return {
    users: userQueries(run),
    conversations: { ...conversations, ...participationThenPage(conversations, messages) },
    participants: participantQueries(run),
    messages,
    events: eventQueries(run),
    signalLog: signalLogQueries(run),
    files: fileQueries(run),
    bots: botQueries(run),
    botEvents: botEventQueries(run),
    botDeliveries: { ...botDeliveryQueries(run), ...deliveries },
    integrationWebhooks: integrationWebhookQueries(run),
    conversationTags: conversationTagQueries(run),
    botLogs: botLogQueries(run),
    botStates: botStateQueries(run),
    botApiKeys: botApiKeyQueries(run),
    tenancy: tenancyQueries(run),
    erasure: erasureQueries(run),
    userRecords: userRecordQueries(run),
    retention: retentionQueries(run),
    handoffs: handoffQueries(run),
    agents: agentQueries(run),
    conversationNotes: conversationNoteQueries(run),
    handoffRequests: handoffRequestQueries(run),
  }
}
