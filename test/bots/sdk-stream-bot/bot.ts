import * as sdk from '@botpress/sdk'

// A stock @botpress/sdk bot written for Botpress' chat integration 1.x, as its users write one: it
// answers "stream <words>" word by word through the integration's action chat:publishMessageStream,
// then posts the whole answer with the stream's id in its metadata (which completes the stream);
// "abort <words>" streams the words, then gives the stream up. Started with BP_API_URL and BP_TOKEN.
const bot = new sdk.Bot({ actions: {}, plugins: {} })

type StreamSignal =
  | { type: 'delta'; streamId: string; createdAt: string; clientMessageId?: string; sequence: number; delta: string }
  | { type: 'abort'; streamId: string }

bot.on.message('*', async ({ message, client, ctx }) => {
  if (message.type !== 'text') return
  const [command, ...words] = String(message.payload.text).split(' ')
  if (command !== 'stream' && command !== 'abort') return
  const { conversationId } = message
  const streamId = `stream-${message.id}`
  const createdAt = new Date().toISOString()
  // The bot declares no integration here: the action is called by its name, as the chat integration defines it.
  const publish = (signal: StreamSignal) =>
    client.callAction({ type: 'chat:publishMessageStream', input: { conversationId, signal } } as unknown as Parameters<typeof client.callAction>[0])
  for (const [sequence, word] of words.entries()) {
    await publish({ type: 'delta', streamId, createdAt, sequence, delta: sequence === 0 ? word : ` ${word}` })
  }
  if (command === 'abort') {
    await publish({ type: 'abort', streamId })
    return
  }
  await client.createMessage({ conversationId, userId: ctx.botId, tags: {}, type: 'text', payload: { text: words.join(' '), metadata: { streamId } } })
})

void bot.start(Number(process.env.PORT))
