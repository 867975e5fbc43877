import type { BotRow, ChatIntegrationRow, IntegrationWebhookDeliveryRow } from '../db/schema.ts'
import type { After, Queries, Store } from '../db/store.ts'
import { signingSecretsOf } from './bots/admin/secrets.ts'
import type { BotInbox } from './bots/delivery/inbox.ts'
import { now } from './clock.ts'
import { invalidPayload } from './errors.ts'
import { newId } from './ids.ts'
import { checkBotUrl, checkHttpUrl, type OutboundPolicy } from './outbound-policy.ts'
import { openSecret, sealSecret } from './secret-box.ts'
import { isLogged, logSignal } from './signal-log.ts'
import type { ConversationSignal, SignalPublisher } from './signals.ts'

/*
 * Integration webhooks (issue 51): the chat integration's configuration `webhookUrl` and
 * `webhookSecret`, as Botpress' chat integration has them. Every stored signal of the integration
 * is also POSTed to the url (the secret in `x-secret-key`, and signed as bot deliveries are),
 * through an outbox written in the unit of the change it tells, in order, retried as for bots.
 */

/**
 * The signals POSTed to an integration's webhook: what the Chat API streams of a change that is
 * stored (the signals the log keeps: domain/signal-log.ts), and a stream's completion. Transient ones are not (typing, a stream's deltas and abort: nothing durable to send
 * again, and a delta sent after an outage would draw a message already complete), nor is
 * message_status_changed (Confab's own, which the Chat API's /listen does not send either), nor
 * those Confab's own listeners alone hear.
 */
export const postedToWebhook = (signal: ConversationSignal): boolean => isLogged(signal) || signal.type === 'message_stream_complete'

interface Teller {
  integration: ChatIntegrationRow
  signals: SignalPublisher
  bots: BotInbox
}

/**
 * Inside a unit, the one way a change is told: a signal of stored state is logged in the unit (its id
 * is the committed log's, which a listener resumes from: domain/signal-log.ts); when the integration
 * has a webhook, its delivery there is recorded in the same unit (a change answered 200 is POSTed even
 * if the process dies right after); the conversation's listeners hear it once the unit committed.
 * Deliveries and signals keep the order of their calls.
 */
export async function tell(ctx: Teller, q: Queries, after: After, signal: ConversationSignal): Promise<void> {
  const told = isLogged(signal) ? await logSignal(ctx.integration.id, q, signal) : signal
  if (ctx.integration.webhookUrl !== null && postedToWebhook(signal)) {
    const at = now()
    await q.integrationWebhooks.insert({ id: newId(), integrationId: ctx.integration.id, signal, attempts: 0, nextAttemptAt: at, createdAt: at })
    after(() => ctx.bots.wakeWebhooks?.())
  }
  after(() => ctx.signals.publish(ctx.integration.id, told))
}

export const webhookUrlMaxLength = 2048
export const webhookSecretMaxLength = 1024

/** What the configuration says of the webhook: a url and a secret (each null: none), the secret as given. */
export interface WebhookSetting {
  webhookUrl: string | null
  webhookSecret: string | null
}

/** A header value (RFC 9110): visible ASCII, inner spaces allowed; what `x-secret-key` can carry as given. */
const headerValue = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/

/**
 * The webhook a configuration sets (it replaces the whole configuration, as Botpress' does: a
 * configuration without `webhookUrl` removes the webhook). 400 InvalidPayload for a url that is no
 * absolute http(s) URL, is too long or points where Confab never sends (the bots' outbound policy),
 * or a secret that is empty, too long, no header value, or given without a url.
 */
export async function checkWebhookSetting(
  configuration: { webhookUrl?: string | null; webhookSecret?: string | null },
  policy: OutboundPolicy | undefined,
): Promise<WebhookSetting> {
  const field = 'integrations.chat.configuration.webhookUrl'
  const secretField = 'integrations.chat.configuration.webhookSecret'
  const { webhookUrl = null, webhookSecret = null } = configuration
  if (webhookSecret !== null && webhookUrl === null) throw invalidPayload(`${secretField} is sent to a webhookUrl: give one`)
  if (webhookSecret !== null && (webhookSecret.length > webhookSecretMaxLength || !headerValue.test(webhookSecret))) {
    throw invalidPayload(`${secretField} must be 1-${webhookSecretMaxLength} visible ASCII characters (it is sent as a header), spaces only inside`)
  }
  if (webhookUrl === null) return { webhookUrl: null, webhookSecret: null }
  if (webhookUrl.length > webhookUrlMaxLength) throw invalidPayload(`${field} must be at most ${webhookUrlMaxLength} characters, got ${webhookUrl.length}`)
  return { webhookUrl: await checkBotUrl(checkHttpUrl(webhookUrl, field), policy, field), webhookSecret }
}

/** The columns of a webhook setting: its secret sealed with the integration's shared key (secret-box.ts). */
export const webhookColumns = (setting: WebhookSetting, integration: Pick<ChatIntegrationRow, 'id' | 'encryptionKey'>) => ({
  webhookUrl: setting.webhookUrl,
  webhookSecret:
    setting.webhookSecret === null ? null : sealSecret(setting.webhookSecret, { integrationId: integration.id, encryptionKey: integration.encryptionKey }),
})

/** A sealed webhook secret sealed again with a new shared key (a rotation of it: key-rotation.ts). */
export function resealedWebhookSecret(integration: ChatIntegrationRow, encryptionKey: string): string | null {
  const { webhookSecret, id } = integration
  if (webhookSecret === null) return null
  return sealSecret(openSecret(webhookSecret, { integrationId: id, encryptionKey: integration.encryptionKey }), { integrationId: id, encryptionKey })
}

/** A delivery whose turn has come, with where it goes and how it is signed. */
export interface WebhookDelivery {
  row: IntegrationWebhookDeliveryRow
  signal: ConversationSignal
  /** Undefined once the integration has no webhook any more (it was removed since): the delivery is dropped. */
  url: string | undefined
  /** The secret sent as `x-secret-key`, opened for this attempt only. */
  secret: string | undefined
  /** The bot's Standard Webhooks secrets (the current one, and the one a rotation left while it lasts). */
  signingSecrets: string[]
  botId: string
}

const deliveryOf = (row: IntegrationWebhookDeliveryRow, target: { integration: ChatIntegrationRow; bot: BotRow } | undefined, at: Date): WebhookDelivery => {
  const integration = target?.integration
  return {
    row,
    signal: row.signal as unknown as ConversationSignal,
    url: integration?.webhookUrl ?? undefined,
    secret:
      integration?.webhookSecret == null
        ? undefined
        : openSecret(integration.webhookSecret, { integrationId: integration.id, encryptionKey: integration.encryptionKey }),
    signingSecrets: target ? signingSecretsOf(target.bot, at.toISOString()) : [],
    botId: target?.bot.id ?? '',
  }
}

/**
 * The deliveries due at `at` (each its integration's oldest), taken by this instance until
 * `leaseUntil`: with several instances on one database, each is sent by one of them at a time,
 * and one whose holder died is taken again once the lease has run out.
 */
export async function claimWebhookDeliveries(store: Store, at: Date, limit: number, leaseUntil: Date): Promise<WebhookDelivery[]> {
  const rows = await store.writeStatement((q) => q.integrationWebhooks.claim(at.toISOString(), limit, leaseUntil.toISOString()))
  if (rows.length === 0) return []
  const targets = await store.read((q) => q.integrationWebhooks.targets([...new Set(rows.map((row) => row.integrationId))]))
  const byId = new Map(targets.map((target) => [target.integration.id, target]))
  return rows.map((row) => deliveryOf(row, byId.get(row.integrationId), at))
}

/** Done with (sent, given up, or nowhere to go): the integration's next delivery is due. */
export const removeWebhookDelivery = (store: Store, id: string) => store.writeStatement((q) => q.integrationWebhooks.remove(id))

/** Tried again at `next`, after `attempts` attempts. */
export const rescheduleWebhookDelivery = (store: Store, id: string, attempts: number, next: Date) =>
  store.writeStatement((q) => q.integrationWebhooks.reschedule(id, attempts, next.toISOString()))

/** When the earliest delivery may come due, if any waits. */
export const nextWebhookDue = async (store: Store): Promise<Date | undefined> => {
  const at = await store.read((q) => q.integrationWebhooks.nextDue())
  return at === undefined ? undefined : new Date(at)
}
