import * as sdk from '@botpress/sdk'

// A stock @botpress/sdk bot written for Botpress' chat integration, the way its echo bot is
// (botpress/botpress, bots/echo): it answers every message with the same message (its metadata
// included, which the SDK carries in the payload), sends a bloc of its own on "bloc", tells the
// tags of its user and conversation on "tags", and answers each custom event (`chat:custom`) with
// the integration's action `chat:sendEvent`. Started with BP_API_URL and BP_TOKEN set.
const bot = new sdk.Bot({ actions: {}, plugins: {} })

bot.on.event('chat:custom', async ({ event, client }) => {
  await client.callAction({ type: 'chat:sendEvent', input: event.payload })
})

bot.on.message('*', async ({ message, user, conversation, client, ctx }) => {
  const respond = (type: string, payload: Record<string, unknown>) =>
    client.createMessage({ conversationId: message.conversationId, userId: ctx.botId, tags: {}, type, payload })
  const text = message.type === 'text' ? String(message.payload.text) : undefined
  if (text === 'bloc') {
    await respond('bloc', {
      items: [
        { type: 'text', payload: { text: 'Hello, world!' } },
        { type: 'image', payload: { imageUrl: 'https://files.test/steak.jpg' } },
        { type: 'markdown', payload: { markdown: '**bold**' } },
      ],
      metadata: { from: 'the bot' },
    })
  } else if (text === 'tags') {
    const read = {
      user: (await client.getUser({ id: message.userId })).user.tags,
      conversation: (await client.getConversation({ id: message.conversationId })).conversation.tags,
    }
    const delivered = { user: user.tags, conversation: conversation.tags }
    await respond('text', { text: JSON.stringify({ read, delivered }) })
  } else {
    await respond(message.type, message.payload)
  }
})

void bot.start(Number(process.env.PORT))
