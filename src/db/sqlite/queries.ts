import { and, asc, count, eq, gt, gte, inArray, isNull, lte, min, ne, or, type Placeholder, type SQL, sql, type SQLWrapper } from 'drizzle-orm'
import { alias } from 'drizzle-orm/sqlite-core'
import {
  adminTokens,
  botDeliveries,
  botEvents,
  botLogs,
  botApiKeys,
  botStates,
  type BotRow,
  bots,
  chatIntegrations,
  conversations,
  type MessageRow,
  messages,
  events,
  files,
  participants,
  type UserRow,
  users,
  workspaces,
} from '../schema.ts'
import type { DueDelivery, ParticipantEntry, Participation, Queries } from '../store.ts'
import type { SqliteDb } from './connection.ts'
import { type Bounds, boundValues, keyset, placeholderBounds, preparedBy, type Shape, shapeOf } from './keyset.ts'
import { runOften } from './statement.ts'
import { sqliteChosenIds } from './chosen-ids.ts'
import type { TenancyCache } from './tenancy-cache.ts'

const p = sql.placeholder

/** A value bound into a statement: its own, or the placeholder a prepared statement takes it by. */
type Bound<T> = T | Placeholder

/**
 * LIMITs of prepared statements. SQLite plans with the value bound to a bare `LIMIT ?` (which is
 * what drizzle makes of any limit, a number too), so binding one marks the statement to be prepared
 * again: every run of a page cost a prepare (18 µs where the page itself took 3). A limit inside an
 * expression, or written out, is not planned with. (drizzle renders any SQL it is given as the
 * limit; its type says number or placeholder.)
 */
const pageLimit = () => sql`cast(${p('limit')} as integer)` as unknown as Placeholder
const fixedLimit = (limit: number) => sql.raw(String(Math.trunc(limit))) as unknown as Placeholder

/** Lists of ids up to this long run prepared statements (one per length); longer ones are built per batch. */
const maxPreparedIds = 32

const idPlaceholders = (count: number) => Array.from({ length: count }, (_, i) => p(`id${i}`))

const idValues = (ids: readonly string[]) => Object.fromEntries(ids.map((id, i) => [`id${i}`, id]))

/** A statement made on first use: a reading connection never prepares the writes it will not run. */
function once<T extends object>(make: () => T): () => T {
  let made: T | undefined
  return () => (made ??= runOften(make()))
}

/*
 * Lists of many conversations at once (GraphQL views) are one statement: a UNION ALL of one keyset
 * query per conversation, each walking its index to its LIMIT. Their SQL depends on how many
 * conversations there are, so it is built per batch; a single conversation (every REST list) runs
 * a prepared statement. SQLite allows 500 terms in a compound select; the loaders stay below that.
 */
const unionOfPages = (ids: readonly string[], pageOf: (conversationId: string) => SQLWrapper): SQL =>
  sql.join(
    ids.map((id) => sql`select * from (${pageOf(id)})`),
    sql` union all `,
  )

/** A column under the name a raw row carries it by. */
const named = (column: SQLWrapper, name: string) => sql`${column}`.as(name)

/** A messages row as SQLite returns it to a raw query. */
interface MessageRecord {
  integration_id: string
  id: string
  conversation_id: string
  user_id: string
  payload: string
  metadata: string | null
  feedback: string | null
  created_at: string
}

/** A message from the columns SQLite returns, its JSON ones decoded. */
const messageFrom = (
  integrationId: string,
  conversationId: string,
  id: string,
  userId: string,
  payload: string,
  metadata: string | null,
  feedback: string | null,
  createdAt: string,
): MessageRow => ({
  integrationId,
  id,
  conversationId,
  userId,
  payload: JSON.parse(payload) as Record<string, unknown>,
  metadata: metadata === null ? null : (JSON.parse(metadata) as Record<string, unknown>),
  feedback: feedback === null ? null : (JSON.parse(feedback) as MessageRow['feedback']),
  createdAt,
})

const messageOf = (row: MessageRecord): MessageRow =>
  messageFrom(row.integration_id, row.conversation_id, row.id, row.user_id, row.payload, row.metadata, row.feedback, row.created_at)

/** A row of the prepared page of one conversation's messages, as SQLite returns it (`values`). */
type PageRow = [id: string, userId: string, payload: string, metadata: string | null, feedback: string | null, createdAt: string]

/** A participant row as the page query returns it (SQLite has no booleans: is_bot comes back 0/1). */
interface ParticipantRecord extends Omit<UserRow, 'isBot'> {
  isBot: number
  conversationId: string
  joinedAt: string
  joinId: string
}

const entryOf = ({ conversationId: _c, joinedAt, joinId, isBot, ...user }: ParticipantRecord): ParticipantEntry => ({
  user: { ...user, isBot: Boolean(isBot) },
  joinedAt,
  joinId,
})

const groupBy = <T>(ids: readonly string[], rows: T[], idOf: (row: T) => string): Map<string, T[]> => {
  const groups = new Map<string, T[]>(ids.map((id) => [id, []]))
  for (const row of rows) groups.get(idOf(row))?.push(row)
  return groups
}

/** Every named query of the storage API, as SQLite statements on one connection. */
export function sqliteQueries(db: SqliteDb, cache: TenancyCache): Queries {
  const participantOf = (on: { integrationId: SQLWrapper; conversationId: SQLWrapper; userId: SQLWrapper }) =>
    and(
      eq(participants.integrationId, on.integrationId),
      eq(participants.conversationId, on.conversationId),
      eq(participants.userId, on.userId),
    )

  const user = {
    find: once(() =>
      db.select().from(users).where(and(eq(users.integrationId, p('integrationId')), eq(users.id, p('id')))).prepare(),
    ),
    insert: once(() =>
      db
        .insert(users)
        .values({
          integrationId: p('integrationId'),
          id: p('id'),
          name: p('name'),
          pictureUrl: p('pictureUrl'),
          profile: p('profile'),
          isBot: p('isBot'),
          createdAt: p('createdAt'),
          updatedAt: p('updatedAt'),
        })
        .onConflictDoNothing()
        .returning()
        .prepare(),
    ),
    delete: once(() =>
      db.delete(users).where(and(eq(users.integrationId, p('integrationId')), eq(users.id, p('id')))).prepare(),
    ),
    /** Up to `maxPreparedIds` users by id (a page's authors): one prepared statement per count. */
    findMany: preparedBy((count: number) =>
      db
        .select()
        .from(users)
        .where(and(eq(users.integrationId, p('integrationId')), inArray(users.id, idPlaceholders(count))))
        .prepare(),
    ),
    shareAConversation: once(() => {
      const theirs = alias(participants, 'theirs')
      return db
        .select({ conversationId: participants.conversationId })
        .from(participants)
        .innerJoin(
          theirs,
          and(eq(theirs.integrationId, participants.integrationId), eq(theirs.conversationId, participants.conversationId)),
        )
        .where(
          and(
            eq(participants.integrationId, p('integrationId')),
            eq(participants.userId, p('userId')),
            eq(theirs.userId, p('otherId')),
          ),
        )
        .limit(fixedLimit(1))
        .prepare()
    }),
  }

  const participationQuery = (conversationIds: SQL) =>
    db
      .select({ conversation: conversations, participant: users })
      .from(conversations)
      .leftJoin(
        participants,
        participantOf({
          integrationId: conversations.integrationId,
          conversationId: conversations.id,
          userId: p('userId'),
        }),
      )
      .leftJoin(users, and(eq(users.integrationId, participants.integrationId), eq(users.id, participants.userId)))
      .where(and(eq(conversations.integrationId, p('integrationId')), conversationIds))

  const conversation = {
    find: once(() =>
      db
        .select()
        .from(conversations)
        .where(and(eq(conversations.integrationId, p('integrationId')), eq(conversations.id, p('id'))))
        .prepare(),
    ),
    insert: once(() =>
      db
        .insert(conversations)
        .values({
          integrationId: p('integrationId'),
          id: p('id'),
          ownerId: p('ownerId'),
          createdAt: p('createdAt'),
          updatedAt: p('updatedAt'),
        })
        .onConflictDoNothing()
        .returning()
        .prepare(),
    ),
    delete: once(() =>
      db
        .delete(conversations)
        .where(and(eq(conversations.integrationId, p('integrationId')), eq(conversations.id, p('id'))))
        .prepare(),
    ),
    participation: once(() => participationQuery(eq(conversations.id, p('conversationId'))).prepare()),
    participations: preparedBy((count: number) =>
      participationQuery(inArray(conversations.id, idPlaceholders(count))).prepare(),
    ),
    pageOfParticipant: preparedBy((shape: Shape) => {
      const page = keyset([conversations.createdAt, conversations.id], 'desc', placeholderBounds(shape))
      return db
        .select({ conversation: conversations })
        .from(participants)
        .innerJoin(
          conversations,
          and(eq(conversations.integrationId, participants.integrationId), eq(conversations.id, participants.conversationId)),
        )
        .where(and(eq(participants.integrationId, p('integrationId')), eq(participants.userId, p('userId')), page.where))
        .orderBy(...page.orderBy)
        .limit(pageLimit())
        .prepare()
    }),
  }

  const participant = {
    insert: once(() =>
      db
        .insert(participants)
        .values({
          integrationId: p('integrationId'),
          conversationId: p('conversationId'),
          userId: p('userId'),
          joinId: p('joinId'),
          createdAt: p('createdAt'),
        })
        .onConflictDoNothing()
        .returning({ userId: participants.userId })
        .prepare(),
    ),
    exists: once(() =>
      db
        .select({ userId: participants.userId })
        .from(participants)
        .where(participantOf({ integrationId: p('integrationId'), conversationId: p('conversationId'), userId: p('userId') }))
        .prepare(),
    ),
    delete: once(() =>
      db
        .delete(participants)
        .where(participantOf({ integrationId: p('integrationId'), conversationId: p('conversationId'), userId: p('userId') }))
        .returning({ userId: participants.userId })
        .prepare(),
    ),
    conversationsOf: once(() =>
      db
        .select({ conversationId: participants.conversationId, ownerId: conversations.ownerId })
        .from(participants)
        .innerJoin(
          conversations,
          and(eq(conversations.integrationId, participants.integrationId), eq(conversations.id, participants.conversationId)),
        )
        .where(and(eq(participants.integrationId, p('integrationId')), eq(participants.userId, p('userId'))))
        .prepare(),
    ),
  }

  /** One conversation's page of participants, as a query the prepared and the batched forms share. */
  const participantPage = (integrationId: Bound<string>, conversationId: Bound<string>, window: Bounds, limit: Bound<number>) => {
    const page = keyset([participants.createdAt, participants.joinId], 'asc', window)
    return db
      .select({
        integrationId: named(users.integrationId, 'integrationId'),
        id: named(users.id, 'id'),
        name: named(users.name, 'name'),
        pictureUrl: named(users.pictureUrl, 'pictureUrl'),
        profile: named(users.profile, 'profile'),
        isBot: named(users.isBot, 'isBot'),
        createdAt: named(users.createdAt, 'createdAt'),
        updatedAt: named(users.updatedAt, 'updatedAt'),
        conversationId: named(participants.conversationId, 'conversationId'),
        joinedAt: named(participants.createdAt, 'joinedAt'),
        joinId: named(participants.joinId, 'joinId'),
      })
      .from(participants)
      .innerJoin(users, and(eq(users.integrationId, participants.integrationId), eq(users.id, participants.userId)))
      .where(
        and(
          eq(participants.integrationId, integrationId),
          eq(participants.conversationId, conversationId),
          page.where,
        ),
      )
      .orderBy(...page.orderBy)
      .limit(limit)
  }
  const participantPagePrepared = preparedBy((shape: Shape) =>
    participantPage(p('integrationId'), p('conversationId'), placeholderBounds(shape), pageLimit()).prepare(),
  )

  /** Where one conversation's page of messages is, newest first. */
  const messagePageOf = (integrationId: Bound<string>, conversationId: Bound<string>, window: Bounds) => {
    const page = keyset([messages.createdAt, messages.id], 'desc', window)
    return {
      where: and(eq(messages.integrationId, integrationId), eq(messages.conversationId, conversationId), page.where),
      orderBy: page.orderBy,
    }
  }
  const messagePage = (integrationId: Bound<string>, conversationId: Bound<string>, window: Bounds, limit: Bound<number>) => {
    const { where, orderBy } = messagePageOf(integrationId, conversationId, window)
    return db.select().from(messages).where(where).orderBy(...orderBy).limit(limit)
  }
  /**
   * The page of one conversation (every REST list), prepared. Its rows leave out the integration
   * and conversation ids the page was asked by: making their 40 strings took a page of 20 from
   * 16.5 to 21 µs in SQLite's part.
   */
  const messagePagePrepared = preparedBy((shape: Shape) => {
    const { where, orderBy } = messagePageOf(p('integrationId'), p('conversationId'), placeholderBounds(shape))
    const { id, userId, payload, metadata, feedback, createdAt } = messages
    return db
      .select({ id, userId, payload, metadata, feedback, createdAt })
      .from(messages)
      .where(where)
      .orderBy(...orderBy)
      .limit(pageLimit())
      .prepare()
  })

  const message = {
    insert: once(() =>
      db
        .insert(messages)
        .values({
          integrationId: p('integrationId'),
          id: p('id'),
          conversationId: p('conversationId'),
          userId: p('userId'),
          payload: p('payload'),
          // A raw placeholder: the column's JSON encoder would store a null metadata as the text 'null'.
          metadata: sql`${p('metadata')}`,
          createdAt: p('createdAt'),
        })
        .prepare(),
    ),
    find: once(() =>
      db.select().from(messages).where(and(eq(messages.integrationId, p('integrationId')), eq(messages.id, p('id')))).prepare(),
    ),
    delete: once(() =>
      db.delete(messages).where(and(eq(messages.integrationId, p('integrationId')), eq(messages.id, p('id')))).prepare(),
    ),
  }

  const event = {
    insert: once(() =>
      db
        .insert(events)
        .values({
          integrationId: p('integrationId'),
          id: p('id'),
          conversationId: p('conversationId'),
          userId: p('userId'),
          payload: p('payload'),
          createdAt: p('createdAt'),
        })
        .prepare(),
    ),
    find: once(() =>
      db.select().from(events).where(and(eq(events.integrationId, p('integrationId')), eq(events.id, p('id')))).prepare(),
    ),
  }

  const bot = {
    insert: once(() =>
      db
        .insert(bots)
        .values({
          id: p('id'),
          workspaceId: p('workspaceId'),
          name: p('name'),
          handler: p('handler'),
          url: p('url'),
          tags: p('tags'),
          createdAt: p('createdAt'),
          updatedAt: p('updatedAt'),
          deployedAt: p('deployedAt'),
          signingSecret: p('signingSecret'),
          previousSigningSecret: p('previousSigningSecret'),
          previousSigningSecretExpiresAt: p('previousSigningSecretExpiresAt'),
          goneUrl: p('goneUrl'),
          protocol: p('protocol'),
        })
        .prepare(),
    ),
    find: once(() =>
      db.select().from(bots).where(and(eq(bots.workspaceId, p('workspaceId')), eq(bots.id, p('id')))).prepare(),
    ),
    delete: once(() =>
      db
        .delete(bots)
        .where(and(eq(bots.workspaceId, p('workspaceId')), eq(bots.id, p('id'))))
        .returning({ id: bots.id })
        .prepare(),
    ),
    integrationOf: once(() => db.select().from(chatIntegrations).where(eq(chatIntegrations.botId, p('botId'))).prepare()),
    page: preparedBy((key: string) => {
      const [field, direction, shape] = key.split(':') as ['createdAt' | 'updatedAt', 'asc' | 'desc', string]
      const page = keyset([bots[field], bots.id], direction, placeholderBounds(Number(shape)))
      return db
        .select()
        .from(bots)
        .where(and(eq(bots.workspaceId, p('workspaceId')), page.where))
        .orderBy(...page.orderBy)
        .limit(pageLimit())
        .prepare()
    }),
    ofIntegration: once(() =>
      db
        .select({ bot: bots, integration: chatIntegrations })
        .from(chatIntegrations)
        .innerJoin(bots, eq(bots.id, chatIntegrations.botId))
        .where(eq(chatIntegrations.id, p('integrationId')))
        .prepare(),
    ),
  }

  const botEvent = {
    insert: once(() =>
      db
        .insert(botEvents)
        .values({
          id: p('id'),
          botId: p('botId'),
          integrationId: p('integrationId'),
          conversationId: p('conversationId'),
          userId: p('userId'),
          messageId: p('messageId'),
          type: p('type'),
          direction: p('direction'),
          payload: p('payload'),
          preview: p('preview'),
          createdAt: p('createdAt'),
        })
        .prepare(),
    ),
  }

  /** An optional filter as one prepared statement: a null parameter lets every row through. */
  const ifSet = (column: SQLWrapper, name: string, compare: (column: SQLWrapper, value: Placeholder) => SQL) =>
    or(sql`${p(name)} is null`, compare(column, p(name)))

  /**
   * A delivery its conversation waits on (none older), to a bot whose delivery is on. The heads of
   * all conversations are found once per query from the conversation index, not by a lookup per
   * candidate row: a conversation with a long backlog would otherwise make every poll walk it.
   */
  const deliveryOn = or(isNull(bots.goneUrl), isNull(bots.url), ne(bots.url, bots.goneUrl))
  /** `deliveryOn`, of a bot row in hand. */
  const deliveryIsOn = (bot: BotRow) => bot.goneUrl === null || bot.url === null || bot.url !== bot.goneUrl
  const deliverable = and(
    sql`${botDeliveries.seq} in (select min(heads.seq) from ${botDeliveries} as heads group by heads.integration_id, heads.conversation_id)`,
    deliveryOn,
  )
  /** A delivery with what its attempt needs: see DueDelivery. */
  const dueDelivery = () =>
    db
      .select({ delivery: botDeliveries, bot: bots, integration: chatIntegrations, message: messages })
      .from(botDeliveries)
      .innerJoin(bots, eq(bots.id, botDeliveries.botId))
      .innerJoin(chatIntegrations, eq(chatIntegrations.id, botDeliveries.integrationId))
      .leftJoin(messages, and(eq(messages.integrationId, botDeliveries.integrationId), eq(messages.id, botDeliveries.messageId)))
  const botDelivery = {
    insert: once(() =>
      db
        .insert(botDeliveries)
        .values({
          id: p('id'),
          botId: p('botId'),
          integrationId: p('integrationId'),
          conversationId: p('conversationId'),
          userId: p('userId'),
          event: p('event'),
          messageId: p('messageId'),
          attempts: p('attempts'),
          nextAttemptAt: p('nextAttemptAt'),
          createdAt: p('createdAt'),
        })
        .prepare(),
    ),
    due: once(() =>
      dueDelivery()
        .where(and(lte(botDeliveries.nextAttemptAt, p('now')), deliverable))
        .orderBy(asc(botDeliveries.nextAttemptAt), asc(botDeliveries.seq))
        .limit(pageLimit())
        .prepare(),
    ),
    // Without its bot and integration, which the thread keeps (TenancyCache): the same for every
    // delivery of a conversation, they were most of this hot seek's columns.
    following: once(() =>
      db
        .select({ delivery: botDeliveries, message: messages })
        .from(botDeliveries)
        .leftJoin(messages, and(eq(messages.integrationId, botDeliveries.integrationId), eq(messages.id, botDeliveries.messageId)))
        .where(
          and(
            sql`${botDeliveries.seq} = (select min(next.seq) from ${botDeliveries} as next where next.integration_id = ${p('integrationId')}
              and next.conversation_id = ${p('conversationId')} and next.seq > ${p('afterSeq')})`,
            lte(botDeliveries.nextAttemptAt, p('now')),
          ),
        )
        .prepare(),
    ),
    // One seek of the due index: a delivery waiting behind another, or to a bot whose delivery is
    // off, may make this earlier than need be, which costs one look that finds nothing.
    nextDueAfter: once(() =>
      db
        .select({ at: min(botDeliveries.nextAttemptAt) })
        .from(botDeliveries)
        .where(gt(botDeliveries.nextAttemptAt, p('now')))
        .prepare(),
    ),
    reschedule: once(() =>
      db
        .update(botDeliveries)
        .set({ attempts: sql`${p('attempts')}`, nextAttemptAt: sql`${p('nextAttemptAt')}` })
        .where(eq(botDeliveries.id, p('id')))
        .returning({ id: botDeliveries.id })
        .prepare(),
    ),
    remove: once(() =>
      db.delete(botDeliveries).where(eq(botDeliveries.id, p('id'))).returning({ id: botDeliveries.id }).prepare(),
    ),
  }

  const botLog = {
    insert: once(() =>
      db
        .insert(botLogs)
        .values({
          id: p('id'),
          botId: p('botId'),
          timestamp: p('timestamp'),
          level: p('level'),
          message: p('message'),
          conversationId: p('conversationId'),
          userId: p('userId'),
        })
        .prepare(),
    ),
    page: preparedBy((shape: Shape) => {
      const page = keyset([botLogs.timestamp, botLogs.id], 'desc', placeholderBounds(shape))
      return db
        .select()
        .from(botLogs)
        .where(
          and(
            eq(botLogs.botId, p('botId')),
            gte(botLogs.timestamp, p('timeStart')),
            ifSet(botLogs.timestamp, 'timeEnd', (column, value) => sql`${column} <= ${value}`),
            ifSet(botLogs.conversationId, 'conversationId', (column, value) => sql`${column} = ${value}`),
            ifSet(botLogs.userId, 'userId', (column, value) => sql`${column} = ${value}`),
            ifSet(botLogs.level, 'level', (column, value) => sql`${column} = ${value}`),
            page.where,
          ),
        )
        .orderBy(...page.orderBy)
        .limit(pageLimit())
        .prepare()
    }),
  }

  const botState = {
    find: once(() =>
      db
        .select()
        .from(botStates)
        .where(
          and(
            eq(botStates.botId, p('botId')),
            or(
              and(eq(botStates.scope, 'conversation'), eq(botStates.scopeId, p('conversationId'))),
              and(eq(botStates.scope, 'user'), eq(botStates.scopeId, p('userId'))),
              and(eq(botStates.scope, 'bot'), eq(botStates.scopeId, '')),
            ),
          ),
        )
        .prepare(),
    ),
    put: once(() =>
      db
        .insert(botStates)
        .values({ botId: p('botId'), scope: p('scope'), scopeId: p('scopeId'), value: p('value'), updatedAt: p('updatedAt') })
        .onConflictDoUpdate({
          target: [botStates.botId, botStates.scope, botStates.scopeId],
          set: { value: sql`excluded.value`, updatedAt: sql`excluded.updated_at` },
        })
        .prepare(),
    ),
  }

  const botApiKey = {
    insert: once(() =>
      db
        .insert(botApiKeys)
        .values({ id: p('id'), botId: p('botId'), note: p('note'), keyHash: p('keyHash'), createdAt: p('createdAt') })
        .prepare(),
    ),
    byHash: once(() =>
      db
        .select({ key: botApiKeys, bot: bots, integration: chatIntegrations })
        .from(botApiKeys)
        .innerJoin(bots, eq(bots.id, botApiKeys.botId))
        .innerJoin(chatIntegrations, eq(chatIntegrations.botId, bots.id))
        .where(eq(botApiKeys.keyHash, p('keyHash')))
        .prepare(),
    ),
    ofBot: once(() =>
      db
        .select()
        .from(botApiKeys)
        .where(eq(botApiKeys.botId, p('botId')))
        .orderBy(asc(botApiKeys.createdAt), asc(botApiKeys.id))
        .prepare(),
    ),
    delete: once(() =>
      db
        .delete(botApiKeys)
        .where(
          and(
            eq(botApiKeys.id, p('id')),
            inArray(botApiKeys.botId, db.select({ id: bots.id }).from(bots).where(eq(bots.workspaceId, p('workspaceId')))),
          ),
        )
        .returning({ id: botApiKeys.id })
        .prepare(),
    ),
  }

  const botStateScope = once(() =>
    db
      .select()
      .from(botStates)
      .where(and(eq(botStates.botId, p('botId')), eq(botStates.scope, p('scope')), eq(botStates.scopeId, p('scopeId'))))
      .prepare(),
  )

  const markUrlGone = once(() =>
    db
      .update(bots)
      .set({ goneUrl: sql`${p('url')}` })
      .where(eq(bots.id, p('id')))
      .prepare(),
  )

  const tenancy = {
    anyWorkspace: once(() => db.select({ id: workspaces.id }).from(workspaces).limit(fixedLimit(1)).prepare()),
    insertWorkspace: once(() =>
      db
        .insert(workspaces)
        .values({ id: p('id'), name: p('name'), createdAt: p('createdAt'), updatedAt: p('updatedAt') })
        .prepare(),
    ),
    insertAdminToken: once(() =>
      db
        .insert(adminTokens)
        .values({ id: p('id'), workspaceId: p('workspaceId'), tokenHash: p('tokenHash'), createdAt: p('createdAt') })
        .prepare(),
    ),
    adminTokenByHash: once(() => db.select().from(adminTokens).where(eq(adminTokens.tokenHash, p('tokenHash'))).prepare()),
    insertChatIntegration: once(() =>
      db
        .insert(chatIntegrations)
        .values({
          id: p('id'),
          botId: p('botId'),
          webhookId: p('webhookId'),
          encryptionKey: p('encryptionKey'),
          personalEncryptionKey: p('personalEncryptionKey'),
          createdAt: p('createdAt'),
        })
        .prepare(),
    ),
    chatIntegrationByWebhook: once(() =>
      db.select().from(chatIntegrations).where(eq(chatIntegrations.webhookId, p('webhookId'))).prepare(),
    ),
  }

  const botOfIntegration = (integrationId: string) =>
    cache.botOfIntegration(integrationId, () => bot.ofIntegration().get({ integrationId }))

  return {
    chosenIds: sqliteChosenIds(db),
    users: {
      find: async (integrationId, id) => user.find().get({ integrationId, id }),
      findMany: async (integrationId, ids) =>
        ids.length <= maxPreparedIds
          ? user.findMany(ids.length).all({ integrationId, ...idValues(ids) })
          : db
              .select()
              .from(users)
              .where(and(eq(users.integrationId, integrationId), inArray(users.id, [...ids])))
              .all(),
      insert: async (row) => user.insert().get(row),
      update: async (integrationId, id, changes) =>
        db
          .update(users)
          .set(changes)
          .where(and(eq(users.integrationId, integrationId), eq(users.id, id)))
          .returning()
          .get(),
      delete: async (integrationId, id) => {
        user.delete().run({ integrationId, id })
      },
      shareAConversation: async (integrationId, userId, otherId) =>
        user.shareAConversation().get({ integrationId, userId, otherId }) !== undefined,
    },

    conversations: {
      find: async (integrationId, id) => conversation.find().get({ integrationId, id }),
      insert: async (row) => conversation.insert().get(row),
      delete: async (integrationId, id) => {
        conversation.delete().run({ integrationId, id })
      },
      participation: async (integrationId, conversationId, userId) =>
        participationOf(conversation.participation().get({ integrationId, conversationId, userId })),
      participations: async (integrationId, conversationIds, userId) => {
        const rows =
          conversationIds.length <= maxPreparedIds
            ? conversation.participations(conversationIds.length).all({ integrationId, userId, ...idValues(conversationIds) })
            : participationQuery(inArray(conversations.id, [...conversationIds])).all({ integrationId, userId })
        const found = new Map<string, Participation>()
        for (const row of rows) found.set(row.conversation.id, participationOf(row))
        return found
      },
      pageOfParticipant: async (integrationId, userId, window) =>
        conversation
          .pageOfParticipant(shapeOf(window))
          .all({ integrationId, userId, ...boundValues(window) })
          .map((row) => row.conversation),
    },

    participants: {
      insert: async (row) => participant.insert().get(row) !== undefined,
      exists: async (integrationId, conversationId, userId) =>
        participant.exists().get({ integrationId, conversationId, userId }) !== undefined,
      delete: async (integrationId, conversationId, userId) =>
        participant.delete().get({ integrationId, conversationId, userId }) !== undefined,
      conversationsOf: async (integrationId, userId) => participant.conversationsOf().all({ integrationId, userId }),
      pages: async (integrationId, conversationIds, window) => {
        const rows: ParticipantRecord[] =
          conversationIds.length === 1
            ? (participantPagePrepared(shapeOf(window)).all({
                integrationId,
                conversationId: conversationIds[0],
                ...boundValues(window),
              }) as ParticipantRecord[])
            : db.all<ParticipantRecord>(
                unionOfPages(conversationIds, (conversationId) =>
                  participantPage(integrationId, conversationId, window, window.limit),
                ),
              )
        const groups = groupBy(conversationIds, rows, (row) => row.conversationId)
        return new Map([...groups].map(([id, group]) => [id, group.map(entryOf)]))
      },
    },

    messages: {
      insert: async (row) => {
        message.insert().run({ ...row, metadata: row.metadata === null ? null : JSON.stringify(row.metadata) })
      },
      find: async (integrationId, id) => message.find().get({ integrationId, id }),
      updatePayload: async (integrationId, id, payload) =>
        db
          .update(messages)
          .set({ payload })
          .where(and(eq(messages.integrationId, integrationId), eq(messages.id, id)))
          .returning()
          .get(),
      delete: async (integrationId, id) => {
        message.delete().run({ integrationId, id })
      },
      pages: async (integrationId, conversationIds, window) => {
        if (conversationIds.length === 1) {
          const conversationId = conversationIds[0] as string
          const rows = messagePagePrepared(shapeOf(window)).values({ integrationId, conversationId, ...boundValues(window) }) as PageRow[]
          const page = rows.map(([id, userId, payload, metadata, feedback, createdAt]) =>
            messageFrom(integrationId, conversationId, id, userId, payload, metadata, feedback, createdAt),
          )
          return new Map([[conversationId, page]])
        }
        const rows = db
          .all<MessageRecord>(
            unionOfPages(conversationIds, (conversationId) => messagePage(integrationId, conversationId, window, window.limit)),
          )
          .map(messageOf)
        return groupBy(conversationIds, rows, (row) => row.conversationId)
      },
      setFeedback: async (integrationId, id, feedback) =>
        db
          .update(messages)
          // A raw value: the column's JSON encoder would store a null feedback as the text 'null'.
          .set({ feedback: feedback === null ? sql`NULL` : feedback })
          .where(and(eq(messages.integrationId, integrationId), eq(messages.id, id)))
          .returning()
          .get(),
      update: async (integrationId, id, { payload, metadata }) =>
        db
          .update(messages)
          .set({ payload, metadata: metadata === null ? sql`NULL` : metadata })
          .where(and(eq(messages.integrationId, integrationId), eq(messages.id, id)))
          .returning()
          .get(),
    },

    files: {
      insert: async (row) => {
        db.insert(files).values(row).run()
      },
      find: async (integrationId, id) =>
        db.select().from(files).where(and(eq(files.integrationId, integrationId), eq(files.id, id))).get(),
      markUploaded: async (integrationId, id, at) =>
        db
          .update(files)
          .set({ uploadedAt: at })
          .where(and(eq(files.integrationId, integrationId), eq(files.id, id), isNull(files.uploadedAt)))
          .returning({ id: files.id })
          .get() !== undefined,
      sizeOfUser: async (integrationId, userId) =>
        Number(
          db
            .select({ total: sql<number>`coalesce(sum(${files.size}), 0)` })
            .from(files)
            .where(and(eq(files.integrationId, integrationId), eq(files.userId, userId)))
            .get()?.total ?? 0,
        ),
      idsOfUser: async (integrationId, userId) =>
        db
          .select({ id: files.id })
          .from(files)
          .where(and(eq(files.integrationId, integrationId), eq(files.userId, userId)))
          .all()
          .map((row) => row.id),
      idsOfConversation: async (integrationId, conversationId) =>
        db
          .select({ id: files.id })
          .from(files)
          .where(and(eq(files.integrationId, integrationId), eq(files.conversationId, conversationId)))
          .all()
          .map((row) => row.id),
      idsOfIntegration: async (integrationId) =>
        db
          .select({ id: files.id })
          .from(files)
          .where(eq(files.integrationId, integrationId))
          .all()
          .map((row) => row.id),
    },

    events: {
      insert: async (row) => {
        event.insert().run(row)
      },
      find: async (integrationId, id) => event.find().get({ integrationId, id }),
    },

    bots: {
      insert: async (row) => {
        bot.insert().run({
          url: null,
          signingSecret: null,
          previousSigningSecret: null,
          previousSigningSecretExpiresAt: null,
          goneUrl: null,
          protocol: 'webhook',
          ...row,
        })
      },
      find: async (workspaceId, id) => bot.find().get({ workspaceId, id }),
      update: async (workspaceId, id, changes) => {
        cache.botChanged()
        return db
          .update(bots)
          .set(changes)
          .where(and(eq(bots.workspaceId, workspaceId), eq(bots.id, id)))
          .returning()
          .get()
      },
      delete: async (workspaceId, id) => {
        cache.botChanged()
        return bot.delete().get({ workspaceId, id }) !== undefined
      },
      integrationOf: async (botId) => bot.integrationOf().get({ botId }),
      page: async (workspaceId, sort, window) =>
        bot.page(`${sort.field}:${sort.direction}:${shapeOf(window)}`).all({ workspaceId, ...boundValues(window) }),
      ofIntegration: async (integrationId) => botOfIntegration(integrationId),
      markUrlGone: async (id, url) => {
        cache.botChanged()
        markUrlGone().run({ id, url })
      },
    },

    botDeliveries: {
      insert: async (row) => {
        botDelivery.insert().run(row)
      },
      due: async (now, limit): Promise<DueDelivery[]> => botDelivery.due().all({ now, limit }),
      // One process owns an SQLite file: nothing to lease.
      claim: async (now, limit): Promise<DueDelivery[]> => botDelivery.due().all({ now, limit }),
      following: async (integrationId, conversationId, afterSeq, now) => {
        const next = botDelivery.following().get({ integrationId, conversationId, afterSeq, now })
        if (!next) return undefined
        const target = botOfIntegration(integrationId)
        if (!target || target.bot.id !== next.delivery.botId || !deliveryIsOn(target.bot)) return undefined
        // Field by field: `{ ...next, ...target }` cost V8 two new hidden classes per delivery.
        return { delivery: next.delivery, message: next.message, bot: target.bot, integration: target.integration }
      },
      nextDueAfter: async (now) => botDelivery.nextDueAfter().get({ now })?.at ?? undefined,
      reschedule: async (id, attempts, nextAttemptAt) =>
        botDelivery.reschedule().get({ id, attempts, nextAttemptAt }) !== undefined,
      remove: async (id) => botDelivery.remove().get({ id }) !== undefined,
      backlog: async () => {
        const [row] = db.select({ pending: count(), oldest: min(botDeliveries.createdAt) }).from(botDeliveries).all()
        return { pending: row?.pending ?? 0, oldestCreatedAt: row?.oldest ?? undefined }
      },
    },

    botStates: {
      find: async (botId, conversationId, userId) => botState.find().all({ botId, conversationId, userId }),
      put: async (row) => {
        botState.put().run(row)
      },
      findScope: async (botId, scope, scopeId) => botStateScope().get({ botId, scope, scopeId }),
    },

    botApiKeys: {
      insert: async (row) => {
        botApiKey.insert().run(row)
      },
      byHash: async (keyHash) => botApiKey.byHash().get({ keyHash }),
      ofBot: async (botId) => botApiKey.ofBot().all({ botId }),
      delete: async (workspaceId, id) => botApiKey.delete().get({ workspaceId, id }) !== undefined,
    },

    botEvents: {
      insert: async (row) => {
        botEvent.insert().run(row)
      },
    },

    botLogs: {
      insert: async (row) => {
        botLog.insert().run(row)
      },
      page: async (botId, filter, window) =>
        botLog.page(shapeOf(window)).all({
          botId,
          timeStart: filter.timeStart,
          timeEnd: filter.timeEnd ?? null,
          conversationId: filter.conversationId ?? null,
          userId: filter.userId ?? null,
          level: filter.level ?? null,
          ...boundValues(window),
        }),
    },

    tenancy: {
      anyWorkspace: async () => tenancy.anyWorkspace().get() !== undefined,
      insertWorkspace: async (row) => {
        tenancy.insertWorkspace().run(row)
      },
      insertAdminToken: async (row) => {
        tenancy.insertAdminToken().run(row)
      },
      adminTokenByHash: async (tokenHash) => tenancy.adminTokenByHash().get({ tokenHash }),
      insertChatIntegration: async (row) => {
        tenancy.insertChatIntegration().run(row)
      },
      chatIntegrationByWebhook: async (webhookId) =>
        cache.integrationByWebhook(webhookId, () => tenancy.chatIntegrationByWebhook().get({ webhookId })),
      tenants: async () => ({
        workspaces: db.select({ id: workspaces.id, name: workspaces.name }).from(workspaces).orderBy(asc(workspaces.createdAt)).all(),
        adminTokens: db
          .select({ id: adminTokens.id, workspaceId: adminTokens.workspaceId, createdAt: adminTokens.createdAt })
          .from(adminTokens)
          .orderBy(asc(adminTokens.createdAt), asc(adminTokens.id))
          .all(),
        integrations: db
          .select({ workspaceId: bots.workspaceId, botId: bots.id, botName: bots.name, webhookId: chatIntegrations.webhookId })
          .from(chatIntegrations)
          .innerJoin(bots, eq(bots.id, chatIntegrations.botId))
          .orderBy(asc(bots.createdAt), asc(bots.id))
          .all(),
      }),
      deleteAdminToken: async (id) => {
        db.delete(adminTokens).where(eq(adminTokens.id, id)).run()
      },
      setPersonalEncryptionKey: async (integrationId, key) => {
        // Every thread's kept integration goes: the next request of any verifies with the new key.
        cache.botChanged()
        db.update(chatIntegrations).set({ personalEncryptionKey: key }).where(eq(chatIntegrations.id, integrationId)).run()
      },
    },
  }
}

const participationOf = (
  row: { conversation: Participation['conversation']; participant: UserRow | null } | undefined,
): Participation => ({ conversation: row?.conversation, participant: row?.participant ?? undefined })
