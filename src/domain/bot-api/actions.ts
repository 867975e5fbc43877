import { z } from 'zod'
import { invalidPayload } from '../errors.ts'
import { checkEvent, postEvent } from '../events.ts'
import { joinConversation } from '../participants.ts'
import { type BotApiContext, asChat, findConversation } from './context.ts'
import { type Json, botApiInputs, obj, str } from '../../contracts/bot-api-inputs.ts'
import { hitlActions } from './hitl-actions.ts'
import { parseInput } from './inputs.ts'
import { publishMessageStream } from './message-stream.ts'

/*
 * callAction (POST /v1/chat/actions, `{type, input}` → `{output, meta}`): the actions of the chat
 * integration a bot calls as `chat:<action>`. An action's input is read as the integration's schema
 * reads it: a property it does not name is dropped, not refused (Botpress' echo bot hands
 * `chat:sendEvent` the whole `chat:custom` payload, `userId` included).
 */

type Action = (ctx: BotApiContext, input: Json) => Promise<Json>

// Nested under `input`, so that a refusal names the field as the request has it (`input.payload`).
const sendEventInput = z.object({ input: z.object({ conversationId: str, payload: obj }, { error: 'must be an object' }) })

/**
 * `chat:sendEvent`: a custom event from the bot (which joins the conversation, as when it posts),
 * its payload as given: chat listeners get `event_created` with `isBot: true`, the web chat a
 * `custom` signal. The bot is not delivered its own event.
 */
function sendEvent(ctx: BotApiContext, input: Json): Promise<Json> {
  const { conversationId, payload } = parseInput(sendEventInput, { input }).input
  const event = checkEvent({ conversationId, payload })
  return ctx.store.write(async (q, after) => {
    await findConversation(ctx, q, conversationId)
    await joinConversation(asChat(ctx), q, after, conversationId, ctx.bot.id)
    await postEvent(asChat(ctx), q, after, event)
    return {}
  })
}

const actions: Record<string, Action> = { 'chat:sendEvent': sendEvent, 'chat:publishMessageStream': publishMessageStream, ...hitlActions }

export async function callBotApiAction(ctx: BotApiContext, input: Json): Promise<Json> {
  const { type, input: actionInput } = parseInput(botApiInputs.callAction, input)
  const action = Object.hasOwn(actions, type) ? actions[type] : undefined
  if (!action) {
    throw invalidPayload(
      `type names no action: "${type}" is not one of ${Object.keys(actions)
        .map((name) => `"${name}"`)
        .join(', ')}`,
    )
  }
  return { output: await action(ctx, actionInput), meta: { cached: false } }
}
