import pg from 'pg'

/**
 * A database of its own on the PostgreSQL server `adminUrl` names (made as `name`), for a run that
 * must not meet another's tenant or rows; `drop` removes it, connections and all.
 */
export async function freshPostgres(adminUrl: string, name: string): Promise<{ url: string; drop(): Promise<void> }> {
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: adminUrl })
    await client.connect()
    try {
      await client.query(statement)
    } finally {
      await client.end()
    }
  }
  await admin(`create database "${name}"`)
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return { url: url.toString(), drop: () => admin(`drop database if exists "${name}" with (force)`) }
}
