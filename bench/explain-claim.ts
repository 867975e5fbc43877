/*
 * The bot delivery claim on PostgreSQL with a deep outbox: EXPLAIN (ANALYZE, BUFFERS) of the very
 * statement the delivery worker sends (captured as it runs), with 10,000 deliveries queued in one
 * conversation and 10,000 spread over 1,000 conversations, the claim taking 16 (the worker's
 * concurrency). Each EXPLAIN runs in a transaction rolled back: the outbox stays as seeded.
 *   npx tsx bench/explain-claim.ts [--queued 10000]
 * Needs PostgreSQL (BENCH_DATABASE_URL, 127.0.0.1:5432 by default): a schema is made and dropped.
 */
import { randomBytes } from 'node:crypto'
import { bootstrap, firstTenant } from '../src/bootstrap.ts'
import { openPostgresStore } from '../src/db/postgres/store.ts'

const url = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres'
const at = process.argv.indexOf('--queued')
const queued = at >= 0 ? Number(process.argv[at + 1]) : 10_000
const schema = `explain_claim_${randomBytes(4).toString('hex')}`

let captured: { sql: string; params: unknown[] } | undefined
const store = await openPostgresStore(url, {
  schema,
  poolSize: 2,
  onQuery: (sql, params) => {
    if (/^with "leased"/i.test(sql)) captured = { sql, params }
  },
})

/** Seeds `queued` deliveries to the first tenant's bot, over `conversations` conversations (round robin), all due. */
async function seed(conversations: number) {
  const client = await store.pool.connect()
  try {
    await client.query('truncate bot_deliveries, bot_delivery_heads')
    const { rows } = await client.query<{ integration_id: string; bot_id: string }>('select id as integration_id, bot_id from chat_integrations limit 1')
    const { integration_id: integration, bot_id: bot } = rows[0]!
    const now = new Date(Date.now() - 60_000).toISOString()
    await client.query(`insert into users (integration_id, id, created_at, updated_at) values ($1, 'u', $2, $2) on conflict do nothing`, [integration, now])
    await client.query(
      `insert into conversations (integration_id, id, owner_id, created_at, updated_at)
       select $1, 'c' || n, 'u', $2, $2 from generate_series(1, $3::int) n on conflict do nothing`,
      [integration, now, conversations],
    )
    await client.query(
      `insert into bot_deliveries (id, bot_id, integration_id, conversation_id, user_id, event, attempts, next_attempt_at, created_at)
       select 'd' || n, $1, $2, 'c' || (1 + n % $4::int), 'u', '{}', 0, $3, $3 from generate_series(1, $5::int) n`,
      [bot, integration, now, conversations, queued],
    )
    await client.query('analyze bot_deliveries; analyze bot_delivery_heads; analyze bots')
  } finally {
    client.release()
  }
}

/** EXPLAIN (ANALYZE, BUFFERS) of the worker's claim of 16, rolled back. */
async function explainClaim(): Promise<string> {
  captured = undefined
  const now = new Date()
  await store.read((q) => q.botDeliveries.claim(now.toISOString(), 16, new Date(now.getTime() + 30_000).toISOString()))
  if (!captured) throw new Error('the claim was not seen')
  const { sql, params } = captured
  const client = await store.pool.connect()
  try {
    // Taken by no one again: the EXPLAIN claims what the first claim of a worker would.
    await client.query('update bot_deliveries set leased_until = null')
    await client.query('begin')
    const { rows } = await client.query<{ 'QUERY PLAN': string }>(`explain (analyze, buffers) ${sql}`, params)
    await client.query('rollback')
    return rows.map((row) => row['QUERY PLAN']).join('\n')
  } finally {
    client.release()
  }
}

try {
  await bootstrap(store, firstTenant({ webhookId: 'explain-claim' }))
  for (const conversations of [1, 1_000]) {
    await seed(conversations)
    console.log(`\n## ${queued} deliveries queued in ${conversations} conversation(s): the claim of 16\n`)
    console.log(await explainClaim())
  }
} finally {
  await store.pool.query(`drop schema if exists "${schema}" cascade`)
  await store.close()
}
