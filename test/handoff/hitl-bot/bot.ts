import * as sdk from '@botpress/sdk'

// A stock @botpress/sdk bot, written as its users write one, that hands the conversation to a person
// when the user writes "human" (the hitl interface's startHitl, as the hitl plugin calls it) and
// says so when a person gives it back (the hitlStopped event). Otherwise it echoes. Started with
// BP_API_URL and BP_TOKEN set (test/bots/sdk-bot.ts).
const bot = new sdk.Bot({ actions: {}, plugins: {} })

const say = (client: { createMessage: (input: never) => Promise<unknown> }, conversationId: string, userId: string, text: string) =>
  client.createMessage({ conversationId, userId, tags: {}, type: 'text', payload: { text } } as never)

bot.on.message('*', async ({ message, client, ctx }) => {
  if (message.type !== 'text') return
  const text = String(message.payload.text)
  if (text !== 'human') {
    await say(client, message.conversationId, ctx.botId, `bot: ${text}`)
    return
  }
  await say(client, message.conversationId, ctx.botId, 'Let me find you a person.')
  // The bot installs no hitl integration: Confab answers the interface's actions itself.
  await client.callAction({
    type: 'hitl:startHitl',
    input: { userId: message.userId, title: 'Asked for a person', conversationId: message.conversationId, messageHistory: [] },
  } as never)
})

bot.on.event('*', async ({ event, client, ctx }) => {
  if (event.type !== 'hitl:hitlStopped') return
  const { conversationId } = event.payload as { conversationId: string }
  await say(client, conversationId, ctx.botId, 'The bot is back.')
})

void bot.start(Number(process.env.PORT))
