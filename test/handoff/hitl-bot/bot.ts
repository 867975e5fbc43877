import * as sdk from '@botpress/sdk'

// A stock @botpress/sdk bot, written as its users write one, that hands the conversation to a person
// when the user writes "human" (the hitl interface's startHitl, as the hitl plugin calls it), and
// says who joined (hitlAssigned) and that they left (hitlStopped). Otherwise it echoes. Started with
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

// Who took each conversation over, by conversation id: hitlStopped names no one. The official web chat
// shows no one joining or leaving, so the bot says it.
const people = new Map<string, string>()

bot.on.event('*', async ({ event, client, ctx }) => {
  if (event.type === 'hitl:hitlAssigned') {
    const { conversationId, userId } = event.payload as { conversationId: string; userId: string }
    const { user } = await client.getUser({ id: userId })
    const name = user.name ?? 'A person'
    people.set(conversationId, name)
    await say(client, conversationId, ctx.botId, `${name} joined: you are talking to a person.`)
  } else if (event.type === 'hitl:hitlStopped') {
    const { conversationId } = event.payload as { conversationId: string }
    const name = people.get(conversationId) ?? 'The person'
    people.delete(conversationId)
    await say(client, conversationId, ctx.botId, `${name} left: the bot is back.`)
  }
})

void bot.start(Number(process.env.PORT))
