import type { UserRow } from '../../db/schema.ts'
import { now } from '../clock.ts'
import { eraseUser, refuseDeletedUserId } from '../erasure.ts'
import { alreadyExists, DomainError, invalidPayload, notFound } from '../errors.ts'
import { refuseAgentUserId } from '../agent-users.ts'
import { newId } from '../ids.ts'
import { checkProfileFields } from '../profile-caps.ts'
import { type BotApiContext, findUser } from './context.ts'
import { type Json, botApiInputs } from '../../contracts/bot-api-inputs.ts'
import { chosenId, parseInput } from './inputs.ts'
import { botApiPage, botApiWindow } from './pages.ts'
import { listBotApiParticipants } from './participants.ts'
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

const usersSort = 'users'

/**
 * listUsers: the users of the bot's integration (the bot aside), newest first, 20 a page; with
 * `conversationId`, that conversation's participants (as listParticipants). `tags.<name>` of the
 * query keeps the users whose tag has that value (Confab's tags: `chat:fid`, `chat:profile`).
 */
export async function listBotApiUsers(ctx: BotApiContext, input: Json) {
  const { conversationId, nextToken, ...rest } = parseInput(botApiInputs.listUsers, input)
  const wanted = tagFilter(rest)
  if (conversationId !== undefined) {
    const { participants, meta } = await listBotApiParticipants(ctx, { id: conversationId, ...(nextToken !== undefined ? { nextToken } : {}) })
    return { users: participants.filter((user) => hasTags(user, wanted)), meta }
  }
  return ctx.store.read(async (q) => {
    const rows = await q.userRecords.usersPage(ctx.integration.id, botApiWindow(usersSort, nextToken))
    const { page, meta } = botApiPage(usersSort, rows, (u) => [u.createdAt, u.id])
    const users = page.map(botApiUser).filter((user) => hasTags(user, wanted))
    return { users, meta }
  })
}

/** The `tags.<name>=<value>` of a query string (@botpress/client sends tags with dots), as a map. */
function tagFilter(query: Json): Record<string, string> {
  const wanted: Record<string, string> = {}
  for (const [key, value] of Object.entries(query)) {
    if (!key.startsWith('tags.')) continue
    if (typeof value !== 'string') throw invalidPayload(`${key} must be a string`)
    wanted[key.slice('tags.'.length)] = value
  }
  return wanted
}

const hasTags = (user: Json, wanted: Record<string, string>) =>
  Object.entries(wanted).every(([name, value]) => (user.tags as Record<string, string>)[name] === value)

/**
 * deleteUser: the user goes with everything that is theirs, as when they delete themselves or the
 * operator deletes them (eraseUser): the conversations they own end, the others hear they left,
 * and their id cannot be used again. The bot's own user is not found (it goes with its bot).
 */
export function deleteBotApiUser(ctx: BotApiContext, input: Json) {
  const { id } = parseInput(botApiInputs.deleteUser, input)
  return ctx.store.write(async (q, after) => {
    const user = await findUser(ctx, q, id)
    if (user.isBot || !(await eraseUser(ctx, q, after, ctx.integration, id))) throw notFound('User', id)
    return {}
  })
}
