import * as sdk from '@botpress/sdk'

// A stock @botpress/sdk bot, written as its users write one: it echoes each text with a counter
// kept in conversation state, answers a custom event `{type: "ping"}` (which the chat integration
// hands it as `chat:custom`), and throws on "fail" (once per conversation), so that the delivery is
// retried. Started with BP_API_URL and BP_TOKEN set.
const bot = new sdk.Bot({ actions: {}, plugins: {} })

bot.on.message('*', async ({ message, client, ctx }) => {
  const { conversation } = await client.getConversation({ id: message.conversationId })
  if (message.type !== 'text') return
  const text = String(message.payload.text)
  if (text === 'fail') {
    const { state } = await client.getOrSetState({ type: 'conversation', id: conversation.id, name: 'failures', payload: { count: 0 } })
    await client.setState({ type: 'conversation', id: conversation.id, name: 'failures', payload: { count: state.payload.count + 1 } })
    if (state.payload.count === 0) throw new Error('the bot failed on purpose')
  }
  const { state } = await client.getOrSetState({ type: 'conversation', id: conversation.id, name: 'counter', payload: { count: 0 } })
  const count = state.payload.count + 1
  await client.setState({ type: 'conversation', id: conversation.id, name: 'counter', payload: { count } })
  await client.createMessage({
    conversationId: conversation.id,
    userId: ctx.botId,
    tags: {},
    type: 'text',
    payload: { text: `#${count}: ${text}` },
  })
})

bot.on.event('chat:custom', async ({ event, client, ctx }) => {
  const { conversationId, payload } = event.payload as { conversationId: string; payload: { type?: string; nonce?: string } }
  if (payload.type !== 'ping') return
  await client.createMessage({
    conversationId,
    userId: ctx.botId,
    tags: {},
    type: 'text',
    payload: { text: `pong ${payload.nonce}` },
  })
})

void bot.start(Number(process.env.PORT))
