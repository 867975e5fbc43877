import type { UserRow } from '../../db/schema.ts'
import { now } from '../clock.ts'
import { refuseDeletedUserId } from '../erasure.ts'
import { alreadyExists, DomainError } from '../errors.ts'
import { refuseAgentUserId } from '../agent-users.ts'
import { newId } from '../ids.ts'
import { checkProfileFields } from '../profile-caps.ts'
import { type BotApiContext, findUser } from './context.ts'
import { type Json, botApiInputs } from '../../contracts/bot-api-inputs.ts'
import { chosenId, parseInput } from './inputs.ts'
import { botApiUser } from './shapes.ts'

/** A user of the bot's integration; its id is `tags.id` when given (getOrCreate answers the existing one). */
function makeBotApiUser(ctx: BotApiContext, input: Json, orGet: boolean) {
  const { tags, name = null, pictureUrl = null } = parseInput(botApiInputs.createUser, input)
  checkProfileFields({ name, pictureUrl })
  const chosen = chosenId(tags, 'user id')
  if (chosen !== undefined) refuseAgentUserId(chosen)
  return ctx.store.write(async (q) => {
    if (chosen !== undefined) {
      const existing = await q.users.find(ctx.integration.id, chosen)
      if (existing && orGet) return { user: botApiUser(existing) }
      if (existing) throw alreadyExists('User', chosen)
      await refuseDeletedUserId(q, ctx.integration.id, chosen, (message) => new DomainError('AlreadyExists', message))
    }
    const at = now()
    const row = {
      integrationId: ctx.integration.id,
      id: chosen ?? newId(),
      name,
      pictureUrl,
      profile: null,
      isBot: false,
      createdAt: at,
      updatedAt: at,
      idChosen: false,
    }
    const inserted = await q.users.insert(row)
    if (!inserted) throw alreadyExists('User', row.id)
    return { user: botApiUser(inserted) }
  })
}

export const createBotApiUser = (ctx: BotApiContext, input: Json) => makeBotApiUser(ctx, input, false)
export const getOrCreateBotApiUser = (ctx: BotApiContext, input: Json) => makeBotApiUser(ctx, input, true)

export function getBotApiUser(ctx: BotApiContext, input: Json) {
  const { id } = parseInput(botApiInputs.getUser, input)
  return ctx.store.read(async (q) => ({ user: botApiUser(await findUser(ctx, q, id)) }))
}

/** Changes the user's name and picture (absent or null: kept); tags, attributes and properties are not stored. */
export function updateBotApiUser(ctx: BotApiContext, input: Json) {
  const { id, name, pictureUrl } = parseInput(botApiInputs.updateUser, input)
  checkProfileFields({ name, pictureUrl })
  return ctx.store.write(async (q) => {
    await findUser(ctx, q, id)
    const changes = { updatedAt: now(), ...(name !== undefined ? { name } : {}), ...(pictureUrl !== undefined ? { pictureUrl } : {}) }
    const row = await q.users.update(ctx.integration.id, id, changes)
    return { user: botApiUser(row as UserRow) }
  })
}
