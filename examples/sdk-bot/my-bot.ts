import * as sdk from '@botpress/sdk'

// A stock @botpress/sdk bot written for Botpress' chat integration: it echoes with a counter kept in
// conversation state, and answers every custom event with one of its own. It reads BP_API_URL and
// BP_TOKEN (setup-bot.mjs prints them) and listens on BOT_PORT.
const bot = new sdk.Bot({ actions: {}, plugins: {} })

bot.on.message('*', async ({ message, client, ctx }) => {
  if (message.type !== 'text') return
  const at = { type: 'conversation', id: message.conversationId, name: 'counter' } as const
  const { state } = await client.getOrSetState({ ...at, payload: { count: 0 } })
  const count = state.payload.count + 1
  await client.setState({ ...at, payload: { count } })
  await client.createMessage({
    conversationId: message.conversationId,
    userId: ctx.botId,
    tags: {},
    type: 'text',
    payload: { text: `#${count}: ${message.payload.text}` },
  })
})

// A chat user's createEvent({conversationId, payload}) is the integration's event `chat:custom`,
// whose payload is {userId, conversationId, payload}; chat:sendEvent sends an event to the chat users.
bot.on.event('chat:custom', async ({ event, client }) => {
  const { conversationId, payload } = event.payload as { conversationId: string; payload: Record<string, unknown> }
  await client.callAction({ type: 'chat:sendEvent', input: { conversationId, payload: { pong: payload } } })
})

void bot.start(Number(process.env.BOT_PORT ?? 8072))
