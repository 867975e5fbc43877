import type { OutboundPolicy } from '../../outbound-policy.ts'

/** The bot delivery worker of this process: woken once a unit that recorded a delivery has committed. */
export interface BotInbox {
  /**
   * Something may have come due: a new delivery in `conversation` (an integration id and a
   * conversation id), or anything when none is named.
   */
  wake(conversation?: { integrationId: string; conversationId: string }): void
  /** The integration webhooks' sender (domain/integration-webhooks.ts): a delivery was recorded. None: nothing sends them (a replica, which writes nothing). */
  wakeWebhooks?(): void
  /** The outbound policy deliveries connect under: a bot's url is checked against it when set (admin/bots.ts). */
  outbound?: OutboundPolicy
}
