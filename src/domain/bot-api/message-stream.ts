import { z } from 'zod'
import { notFound } from '../errors.ts'
import { type BotApiContext, findConversation } from './context.ts'
import { type Json, optStr, str } from '../../contracts/bot-api-inputs.ts'
import { parseInput } from './inputs.ts'

/*
 * `chat:publishMessageStream` (Botpress' chat integration 1.x, integrations/chat/src/message-stream.ts):
 * a bot publishes the message it is writing piece by piece, each piece (a delta) a transient signal
 * to the conversation's listeners, never stored; its final message, posted as usual with
 * `metadata.streamId`, completes the stream (messages.ts), or an abort gives it up. What orders,
 * rate-limits and bounds the streams is ../message-streams.ts.
 */

/** The longest stream id, client message id and createdAt taken: they reach every listener of the conversation. */
const idMaxLength = 256
const bounded = (max: number) => ({ error: `must be at most ${max} characters` })
const streamId = str.max(idMaxLength, bounded(idMaxLength))

const deltaSignal = z.object({
  type: z.literal('delta'),
  streamId,
  createdAt: z.string({ error: 'must be a string' }).max(64, bounded(64)),
  clientMessageId: optStr.pipe(z.string().max(idMaxLength, bounded(idMaxLength)).optional()),
  sequence: z.number({ error: 'must be a number' }),
  delta: z.string({ error: 'must be a string' }),
})

const abortSignal = z.object({ type: z.literal('abort'), streamId })

// Nested under `input`, so that a refusal names the field as the request has it (`input.signal.delta`).
const publishInput = z.object({
  input: z.object(
    {
      conversationId: str,
      signal: z.discriminatedUnion('type', [deltaSignal, abortSignal], {
        error: (issue) =>
          typeof issue.input === 'object' && issue.input !== null && !Array.isArray(issue.input) ? 'must be "delta" or "abort"' : 'must be an object',
      }),
    },
    { error: 'must be an object' },
  ),
})

/**
 * A delta goes to the conversation's listeners as `message_stream_delta` (the bot's user id beside
 * it), an abort as `message_stream_abort`; answers `{}`. The conversation must be the bot's (404); a
 * stream's first delta opens it, an abort needs it open (404 otherwise).
 */
export async function publishMessageStream(ctx: BotApiContext, input: Json): Promise<Json> {
  const { conversationId, signal } = parseInput(publishInput, { input }).input
  const { streams } = ctx
  const integrationId = ctx.integration.id
  if (signal.type === 'abort') {
    const openIn = streams.openIn(integrationId, signal.streamId)
    if (openIn === undefined || openIn !== conversationId) {
      await ctx.store.read((q) => findConversation(ctx, q, conversationId))
      throw notFound('Message stream', signal.streamId)
    }
    ctx.signals.publish(integrationId, { type: 'message_stream_abort', conversationId, streamId: signal.streamId })
    return {}
  }
  // A stream's conversation is checked once, when it opens: a delta is on the hot path.
  if (streams.openIn(integrationId, signal.streamId) !== conversationId) await ctx.store.read((q) => findConversation(ctx, q, conversationId))
  const { streamId: id, createdAt, clientMessageId, sequence, delta } = signal
  if (streams.admitDelta(integrationId, { conversationId, streamId: id, sequence, delta }) === 'repeat') return {}
  ctx.signals.publish(integrationId, {
    type: 'message_stream_delta',
    conversationId,
    streamId: id,
    userId: ctx.bot.id,
    createdAt,
    ...(clientMessageId === undefined ? {} : { clientMessageId }),
    sequence,
    delta,
  })
  return {}
}
