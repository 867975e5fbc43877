import * as sdk from '@botpress/sdk'

// A stock @botpress/sdk bot: it echoes with a counter kept in conversation state, and answers a
// custom event `ping`. It reads BP_API_URL and BP_TOKEN (setup-bot.mjs prints them) and listens on BOT_PORT.
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

bot.on.event('ping', async ({ event, client, ctx }) => {
  await client.createMessage({
    conversationId: event.conversationId as string,
    userId: ctx.botId,
    tags: {},
    type: 'text',
    payload: { text: 'pong' },
  })
})

void bot.start(Number(process.env.BOT_PORT ?? 8072))
