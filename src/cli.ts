#!/usr/bin/env node
// The command line: `npx confab <command>` (package.json bin), or `npm run confab -- <command>`.
import { realpathSync } from 'node:fs'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { loadConfig } from './config.ts'
import { isPostgresUrl, openStore } from './db/open.ts'
import { backupDatabase, restoreDatabase } from './db/sqlite/backup.ts'

interface Command {
  summary: string
  usage: string
  /** Option names that take no value. */
  flags?: string[]
  run(args: string[], options: Record<string, boolean>): Promise<void>
}

class UsageError extends Error {}

const say = (line: string) => process.stdout.write(`${line}\n`)

/** The SQLite file DATABASE_URL names (the commands that copy files work on SQLite only). */
function sqlitePath(what: string): string {
  const { databaseUrl } = loadConfig()
  if (isPostgresUrl(databaseUrl)) {
    throw new Error(`${what} works on the embedded SQLite database; for PostgreSQL use pg_dump and pg_restore`)
  }
  if (databaseUrl === ':memory:') throw new Error(`${what} needs a database file; DATABASE_URL is :memory:`)
  return resolve(databaseUrl)
}

const commands: Record<string, Command> = {
  serve: {
    summary: 'serve the API (as npm start)',
    usage: 'confab serve',
    async run() {
      await import('./main.ts')
    },
  },
  migrate: {
    summary: 'apply the database migrations to DATABASE_URL, then exit',
    usage: 'confab migrate',
    async run() {
      const { databaseUrl } = loadConfig()
      const store = await openStore(databaseUrl)
      await store.close()
      say(`migrated ${isPostgresUrl(databaseUrl) ? 'the PostgreSQL database' : resolve(databaseUrl)}`)
    },
  },
  backup: {
    summary: 'a consistent copy of the SQLite database and its files, taken while the server runs',
    usage: 'confab backup <file>     (writes <file> and the folder <file>.files)',
    async run([file]) {
      if (!file) throw new UsageError('backup needs the file to write')
      const { file: written, bytes, files } = backupDatabase(sqlitePath('backup'), file)
      say(`backed up ${sqlitePath('backup')} to ${written} (${bytes} bytes, ${files} uploaded files)`)
    },
  },
  restore: {
    summary: 'put a backup in place of the SQLite database (the server must be stopped)',
    usage: 'confab restore <file> [--force]     (--force replaces an existing database)',
    flags: ['force'],
    async run([file], { force = false }) {
      if (!file) throw new UsageError('restore needs the backup file to read')
      const { file: written, bytes, files } = restoreDatabase(file, sqlitePath('restore'), { replace: force })
      say(`restored ${resolve(file)} to ${written} (${bytes} bytes, ${files} uploaded files)`)
    },
  },
  'db:copy': {
    summary: 'copy everything of an SQLite database into an empty PostgreSQL database',
    usage: 'confab db:copy <SQLite file> <postgres://… URL>',
    async run([from, to]) {
      if (!from || !to) throw new UsageError('db:copy needs the SQLite file and the PostgreSQL URL')
      const { copySqliteToPostgres } = await import('./copy-to-postgres.ts')
      const copied = await copySqliteToPostgres(resolve(from), to, { onTable: (table, rows) => say(`  ${table}: ${rows} rows`) })
      say(`copied ${Object.values(copied).reduce((sum, rows) => sum + rows, 0)} rows from ${from} to PostgreSQL`)
    },
  },
}

const help = () =>
  [
    'usage: confab <command> [arguments]',
    '',
    ...Object.entries(commands).map(([name, { summary }]) => `  ${name.padEnd(12)}${summary}`),
    '',
    'Settings come from the environment, as for npm start (DATABASE_URL, PORT, …).',
    '`confab <command> --help` tells more of one.',
  ].join('\n')

export async function cli(argv: string[]): Promise<number> {
  const [name, ...rest] = argv
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    say(help())
    return name === undefined ? 2 : 0
  }
  const command = commands[name]
  if (!command) {
    process.stderr.write(`confab: no command "${name}"\n\n${help()}\n`)
    return 2
  }
  let parsed: ReturnType<typeof parseArgs>
  try {
    const options = Object.fromEntries(['help', ...(command.flags ?? [])].map((flag) => [flag, { type: 'boolean' as const }]))
    parsed = parseArgs({ args: rest, options, allowPositionals: true, strict: true })
  } catch (error) {
    process.stderr.write(`confab ${name}: ${(error as Error).message}\nusage: ${command.usage}\n`)
    return 2
  }
  if (parsed.values.help) {
    say(`${command.summary}\nusage: ${command.usage}`)
    return 0
  }
  try {
    await command.run(parsed.positionals, parsed.values as Record<string, boolean>)
    return 0
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`confab ${name}: ${error.message}\nusage: ${command.usage}\n`)
      return 2
    }
    process.stderr.write(`confab ${name} failed: ${error instanceof Error ? error.message : String(error)}\n`)
    return 1
  }
}

const invoked = process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)
if (invoked) {
  void cli(process.argv.slice(2)).then((code) => {
    // serve keeps the process alive; every other command ends here.
    if (process.argv[2] !== 'serve') process.exit(code)
  })
}
