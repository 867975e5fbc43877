import { notFound } from '../errors.ts'
import { tell } from '../integration-webhooks.ts'
import { botApiPage, botApiWindow } from './pages.ts'
import { joinConversation } from '../participants.ts'
import { type BotApiContext, asChat, findConversation, findUser } from './context.ts'
import { type Json, botApiInputs } from '../../contracts/bot-api-inputs.ts'
import { parseInput } from './inputs.ts'
import { botApiUser } from './shapes.ts'

/** `id` is the conversation's, `userId` the participant's. */

export function addBotApiParticipant(ctx: BotApiContext, input: Json) {
  const { id, userId } = parseInput(botApiInputs.addParticipant, input)
  return ctx.store.write(async (q, after) => {
    const conversation = await findConversation(ctx, q, id)
    const user = await findUser(ctx, q, userId)
    await joinConversation(asChat(ctx), q, after, conversation.id, user.id)
    return { participant: botApiUser(user) }
  })
}

export function removeBotApiParticipant(ctx: BotApiContext, input: Json) {
  const { id, userId } = parseInput(botApiInputs.removeParticipant, input)
  return ctx.store.write(async (q, after) => {
    const conversation = await findConversation(ctx, q, id)
    if (!(await q.participants.delete(ctx.integration.id, conversation.id, userId))) throw notFound('Participant', userId)
    await tell(ctx, q, after, { type: 'participant_removed', conversationId: conversation.id, participantId: userId })
    return {}
  })
}

const participantsSort = 'participants'

export function listBotApiParticipants(ctx: BotApiContext, input: Json) {
  const { id, nextToken } = parseInput(botApiInputs.listParticipants, input)
  return ctx.store.read(async (q) => {
    const conversation = await findConversation(ctx, q, id)
    const window = botApiWindow(participantsSort, nextToken)
    const rows = (await q.participants.pages(ctx.integration.id, [conversation.id], window)).get(conversation.id) ?? []
    const { page, meta } = botApiPage(participantsSort, rows, (e) => [e.joinedAt, e.joinId])
    // A participant page's user rows leave out whether the id was chosen (the `chat:fid` tag): the users are read whole.
    const users = new Map(
      (
        await q.users.findMany(
          ctx.integration.id,
          page.map((e) => e.user.id),
        )
      ).map((u) => [u.id, u]),
    )
    return { participants: page.map((e) => botApiUser(users.get(e.user.id) ?? e.user)), meta }
  })
}

/** getParticipant: the user, when it participates in the conversation; else 404. */
export function getBotApiParticipant(ctx: BotApiContext, input: Json) {
  const { id, userId } = parseInput(botApiInputs.getParticipant, input)
  return ctx.store.read(async (q) => {
    const conversation = await findConversation(ctx, q, id)
    if (!(await q.participants.exists(ctx.integration.id, conversation.id, userId))) throw notFound('Participant', userId)
    return { participant: botApiUser(await findUser(ctx, q, userId)) }
  })
}
