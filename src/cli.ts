#!/usr/bin/env node
// The command line: `npm run confab -- <command>` from the checkout, or `confab <command>` where the package is
// installed (package.json bin). Never through npx: the registry's `confab` is an unrelated package.
import { realpathSync } from 'node:fs'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { existingSqliteFile, openForReading, openForWriting } from './cli-database.ts'
import { type Config, loadConfig } from './config.ts'
import { isPostgresUrl, openStore } from './db/open.ts'
import { backupDatabase, restoreDatabase } from './db/sqlite/backup.ts'
import type { Store } from './db/store.ts'
import { retireOldEncryptionKeys, rotateEncryptionKey } from './domain/key-rotation.ts'
import { issueAdminToken, listTenants, revokeOlderAdminTokens } from './domain/tenancy.ts'
import { version } from './version.ts'

interface Command {
  summary: string
  usage: string
  /** Its options: a flag (boolean) or one that takes a value (string). */
  options?: Record<string, 'boolean' | 'string'>
  run(args: string[], options: Record<string, string | boolean | undefined>): Promise<void>
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

/** The SQLite database the server uses, known to exist (backup reads it). */
const existingSqlitePath = (what: string) => {
  sqlitePath(what)
  return existingSqliteFile(loadConfig())
}

/** How long user keys signed by a rotated encryption key keep working, unless --overlap says. */
const defaultOverlap = '7d'

const commands: Record<string, Command> = {
  serve: {
    summary: 'serve the API (as npm start)',
    usage: 'confab serve',
    async run() {
      await import('./main.ts')
    },
  },
  migrate: {
    summary: 'apply the database migrations to DATABASE_URL (an SQLite file is created if there is none), then exit',
    usage: 'confab migrate',
    async run() {
      const { databaseUrl } = loadConfig()
      // The one command besides the server that makes an SQLite database where none is (a container's first
      // migration, on an empty volume): the path it prints says where.
      const store = await openStore(databaseUrl)
      await store.close()
      say(`migrated ${isPostgresUrl(databaseUrl) ? 'the PostgreSQL database' : resolve(databaseUrl)}`)
    },
  },
  credentials: {
    summary: 'show the workspaces, admin tokens and chat integrations again; issue or revoke admin tokens; rotate encryption keys',
    usage: [
      'confab credentials [--new-admin-token] [--revoke-older-admin-tokens] [--workspace <id>]',
      '                   [--rotate-encryption-key [--overlap <time>]] [--retire-old-encryption-keys] [--webhook-id <id>]',
      '  --new-admin-token             issues another admin token (printed once; the others keep working)',
      '  --revoke-older-admin-tokens   revokes every admin token of the workspace but the newest',
      '  --workspace <id>              the workspace to change, when there are several',
      '  --rotate-encryption-key       a new key signs user keys (the shared key, or the personal one: the',
      "                                integration's mode); printed once. User keys the old one signed still",
      '                                work for the overlap',
      `  --overlap <time>              how long: 30m, 12h, 7d … (${defaultOverlap} by default)`,
      '  --retire-old-encryption-keys  ends every overlap now: user keys signed by an old key are refused',
      '  --webhook-id <id>             the chat integration whose key changes, when there are several',
      'Admin tokens are stored as digests: a lost one cannot be shown, only replaced.',
      'Showing runs beside a running server. To change anything on SQLite, stop the server first (it keeps the keys',
      'it has read); on PostgreSQL a change applies at once.',
    ].join('\n'),
    options: {
      'new-admin-token': 'boolean',
      'revoke-older-admin-tokens': 'boolean',
      workspace: 'string',
      'rotate-encryption-key': 'boolean',
      overlap: 'string',
      'retire-old-encryption-keys': 'boolean',
      'webhook-id': 'string',
    },
    async run(_args, options) {
      const config = loadConfig()
      const changes = ['new-admin-token', 'revoke-older-admin-tokens', 'rotate-encryption-key', 'retire-old-encryption-keys'].some(
        (name) => options[name] === true,
      )
      const store = changes ? await openForWriting(config) : await openForReading(config)
      try {
        await showCredentials(store, baseUrlOf(config), options)
      } finally {
        await store.close()
      }
    },
  },
  backup: {
    summary: 'a consistent copy of the SQLite database and its files, taken while the server runs',
    usage: 'confab backup <file>     (writes <file> and the folder <file>.files)',
    async run([file]) {
      if (!file) throw new UsageError('backup needs the file to write')
      const source = existingSqlitePath('backup')
      const { file: written, bytes, files } = backupDatabase(source, file)
      say(`backed up ${source} to ${written} (${bytes} bytes, ${files} uploaded files)`)
    },
  },
  restore: {
    summary: 'put a backup in place of the SQLite database (the server must be stopped)',
    usage: 'confab restore <file> [--force]     (--force replaces an existing database)',
    options: { force: 'boolean' },
    async run([file], { force }) {
      if (!file) throw new UsageError('restore needs the backup file to read')
      const { file: written, bytes, files } = restoreDatabase(file, sqlitePath('restore'), { replace: force === true })
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

const units: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }

/** `30m`, `12h`, `7d` … in milliseconds. */
function overlapOf(given: string): number {
  const match = /^(\d{1,6})([smhd])$/.exec(given.trim())
  if (!match) throw new UsageError(`--overlap must be a whole number and a unit (s, m, h or d), such as 7d; got "${given}"`)
  return Number(match[1]) * (units[match[2] as string] as number)
}

/** Rotates or retires a chat integration's encryption keys (--rotate-encryption-key, --retire-old-encryption-keys). */
async function changeEncryptionKeys(store: Store, options: Record<string, string | boolean | undefined>) {
  const rotate = options['rotate-encryption-key'] === true
  const retire = options['retire-old-encryption-keys'] === true
  if (typeof options.overlap === 'string' && !rotate) throw new UsageError('--overlap goes with --rotate-encryption-key')
  if (rotate && retire) throw new UsageError('--rotate-encryption-key and --retire-old-encryption-keys are two steps: the overlap is between them')
  const overlapMs = overlapOf(typeof options.overlap === 'string' ? options.overlap : defaultOverlap)
  const webhookId = typeof options['webhook-id'] === 'string' ? options['webhook-id'] : await theIntegration(store, options.workspace)
  if (rotate) {
    const { mode, key, overlapEndsAt } = await rotateEncryptionKey(store, webhookId, overlapMs)
    say(`new ${mode} encryption key for ${webhookId} (shown this once; keep it): ${key}`)
    say(`  user keys signed with the old key keep working until ${overlapEndsAt.toISOString()} (--retire-old-encryption-keys ends that sooner)`)
  }
  if (retire) say(`retired ${await retireOldEncryptionKeys(store, webhookId)} old encryption keys of ${webhookId}`)
}

/**
 * The chat integration a key change is for when --webhook-id does not say: the only one (of the
 * workspace --workspace names, if given); otherwise the refusal lists them, each with its bot.
 */
async function theIntegration(store: Store, workspace: string | boolean | undefined): Promise<string> {
  const { integrations } = await listTenants(store)
  const candidates = typeof workspace === 'string' ? integrations.filter((entry) => entry.workspaceId === workspace) : integrations
  if (candidates.length === 1) return (candidates[0] as (typeof candidates)[number]).webhookId
  const where = typeof workspace === 'string' ? ` in workspace ${workspace}` : ''
  const listed = candidates.map((entry) => `\n  ${entry.webhookId}  (bot ${entry.botName}, workspace ${entry.workspaceId})`).join('')
  throw new UsageError(`there are ${candidates.length} chat integrations${where}: name one with --webhook-id <id>${listed}`)
}

/**
 * The address the printed URLs start with: PUBLIC_URL, the address the world reaches Confab at and
 * every URL the server hands out starts with; else HOST and PORT when PORT is set for the command as
 * for the server. Otherwise the command cannot know the server's address (PORT 0 picks one):
 * `$CONFAB_URL`, the export line the server printed, stands for it.
 */
function baseUrlOf({ host, port, publicUrl }: Config, env: NodeJS.ProcessEnv = process.env): string {
  if (publicUrl) return publicUrl
  if (env.PORT && port !== 0) return `http://${host.includes(':') ? `[${host}]` : host}:${port}`
  return '$CONFAB_URL'
}

async function showCredentials(store: Store, baseUrl: string, options: Record<string, string | boolean | undefined>) {
  const changes = options['new-admin-token'] === true || options['revoke-older-admin-tokens'] === true
  const keyChanges = options['rotate-encryption-key'] === true || options['retire-old-encryption-keys'] === true || options.overlap !== undefined
  let { workspaces, adminTokens, integrations } = await listTenants(store)
  if (workspaces.length === 0) throw new Error('the database has no tenant yet: start the server once (npm start) to create it')
  if (keyChanges) {
    await changeEncryptionKeys(store, options)
    ;({ workspaces, adminTokens, integrations } = await listTenants(store))
  }
  if (changes) {
    const chosen = typeof options.workspace === 'string' ? options.workspace : workspaces.length === 1 ? workspaces[0]?.id : undefined
    if (!chosen) throw new UsageError(`there are ${workspaces.length} workspaces: name one with --workspace <id>`)
    if (options['new-admin-token'] === true) {
      const token = await issueAdminToken(store, chosen)
      say(`new admin token for ${chosen} (shown this once; keep it): ${token}`)
    }
    if (options['revoke-older-admin-tokens'] === true) {
      say(`revoked ${await revokeOlderAdminTokens(store, chosen)} older admin tokens of ${chosen}`)
    }
    ;({ workspaces, adminTokens, integrations } = await listTenants(store))
  }
  if (baseUrl === '$CONFAB_URL') {
    say('$CONFAB_URL: the address the server printed (export CONFAB_URL=…); set PUBLIC_URL, or PORT, to see it here')
  }
  for (const workspace of workspaces) {
    const tokens = adminTokens.filter((token) => token.workspaceId === workspace.id)
    say(`workspace ${workspace.id} (${workspace.name})`)
    say(`  admin base URL:  ${baseUrl}/v1/admin`)
    say(
      `  admin tokens:    ${tokens.length}${tokens.length > 0 ? `, the newest issued ${tokens.at(-1)?.createdAt}` : ''} (stored as digests: --new-admin-token issues another)`,
    )
    for (const integration of integrations.filter((entry) => entry.workspaceId === workspace.id)) {
      say(`  bot ${integration.botName} (${integration.botId})`)
      say(`    webhook id:              ${integration.webhookId}`)
      say(`    chat base URL (apiUrl):  ${baseUrl}/${integration.webhookId}`)
    }
  }
}

const help = () =>
  [
    `confab ${version}`,
    'usage: confab <command> [arguments]     (confab --version: the version alone)',
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
  if (name === '--version' || name === '-v' || name === 'version') {
    say(version)
    return 0
  }
  const command = commands[name]
  if (!command) {
    process.stderr.write(`confab: no command "${name}"\n\n${help()}\n`)
    return 2
  }
  let parsed: ReturnType<typeof parseArgs>
  try {
    const kinds: Record<string, 'boolean' | 'string'> = { help: 'boolean', ...command.options }
    const options = Object.fromEntries(Object.entries(kinds).map(([option, type]) => [option, { type }]))
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
    // No option is declared `multiple`: every value is one string or a flag.
    await command.run(parsed.positionals, parsed.values as Record<string, string | boolean | undefined>)
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
