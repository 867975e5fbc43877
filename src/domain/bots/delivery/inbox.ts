/** The bot delivery worker of this process: woken once a unit that recorded a delivery has committed. */
export interface BotInbox {
  /**
   * Something may have come due: a new delivery in `conversation` (an integration id and a
   * conversation id), or anything when none is named.
   */
  wake(conversation?: { integrationId: string; conversationId: string }): void
}
