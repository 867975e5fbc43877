import pg from 'pg'

/**
 * A database of its own on the PostgreSQL server `adminUrl` names (made as `name`), for a run that
 * must not meet another's tenant or rows; `drop` removes it, connections and all.
 */
export async function freshPostgres(adminUrl: string, name: string): Promise<{ url: string; drop(): Promise<void> }> {
  await once(adminUrl, `create database "${name}"`)
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    drop: async () => {
      await once(adminUrl, `drop database if exists "${name}" with (force)`)
    },
  }
}

/** One statement on its own connection to `url` (with the session settings `options`, `-c name=value…`); its rows. */
async function once<Row extends object>(url: string, statement: string, options?: string): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url, options })
  await client.connect()
  try {
    return (await client.query<Row>(statement)).rows
  } finally {
    await client.end().catch(() => {})
  }
}

/** Whether the server at `url` runs autovacuum (a benchmark machine's may not: a production server does). */
export async function runsAutovacuum(url: string): Promise<boolean> {
  const [row] = await once<{ autovacuum: string }>(url, 'show autovacuum')
  return row?.autovacuum === 'on'
}

/** The dead row versions of the `top` tables with most of them, e.g. "bot_delivery_heads 20636/8" (dead/live). */
export async function deadRows(url: string, top = 3): Promise<string> {
  const rows = await once<{ relname: string; n_dead_tup: string; n_live_tup: string }>(
    url,
    `select relname, n_dead_tup, n_live_tup from pg_stat_user_tables order by n_dead_tup desc limit ${top}`,
  )
  return rows.map((r) => `${r.relname} ${r.n_dead_tup}/${r.n_live_tup}`).join(' ')
}

/**
 * What autovacuum would do at one of its rounds with PostgreSQL's default settings: VACUUM (ANALYZE)
 * each table whose dead rows passed autovacuum_vacuum_threshold (50) + autovacuum_vacuum_scale_factor
 * (0.2) × its live rows. For a run on a server whose autovacuum is off, once a minute (its naptime):
 * an outbox's rows die as fast as they are written, and no production server leaves them. Throttled as
 * autovacuum is (autovacuum_vacuum_cost_delay, 2 ms; a VACUUM typed by hand runs unthrottled, and its
 * bursts of I/O are not what a production server's requests meet). The tables vacuumed.
 */
export async function vacuumAsAutovacuumWould(url: string): Promise<string[]> {
  const due = await once<{ relname: string }>(
    url,
    `select relname from pg_stat_user_tables where schemaname = current_schema() and n_dead_tup > 50 + 0.2 * n_live_tup order by relname`,
  )
  for (const { relname } of due) await once(url, `vacuum (analyze) "${relname}"`, '-c vacuum_cost_delay=2ms')
  return due.map((t) => t.relname)
}
