/*
 * What a bot is shown of the suite's usual first exchange, alice's "hello" in conversation c1, whichever way
 * it reads it (an in-process handler, a webhook, a Botpress event, the runtime API).
 */

/** Alice's conversation c1, with the chat integration's tags; `at`: its createdAt and updatedAt. */
export const aliceC1 = (at: unknown) => ({
  id: 'c1',
  createdAt: at,
  updatedAt: at,
  channel: 'channel',
  integration: 'chat',
  tags: { 'chat:owner': 'alice', 'chat:fid': 'c1' },
})

/** The incoming event of alice's text message "hello" (`messageId`) in c1; its id and createdOn as its transport gives them. */
export const helloFromAlice = (botId: string, messageId: string, { id, createdOn }: { id: unknown; createdOn: unknown }) => ({
  botId,
  conversationId: 'c1',
  createdOn,
  direction: 'incoming',
  id,
  integration: 'chat',
  messageId,
  payload: { type: 'text', text: 'hello' },
  preview: 'hello',
  state: { conversation: {}, user: {}, bot: {} },
  tags: { conversation: {}, message: {}, user: {} },
  type: 'message',
  userId: 'alice',
})
