import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { createServer } from '../../src/server.ts'
import { ensureBuilt, runBuilt as run, START_TIMEOUT, serversInFolder, startServer } from '../helpers/server.ts'
import pino from 'pino'

const { dir, started } = serversInFolder('confab-one-process-')

beforeAll(ensureBuilt, START_TIMEOUT)

describe('one process per SQLite file', () => {
  it(
    'refuses a second server and db:copy on a file in use, naming the file and the process; a killed server leaves no stale lock',
    async () => {
      const databaseUrl = join(dir, 'shared.db')
      const first = await startServer({ databaseUrl })
      started.push(first)

      const second = await run('dist/main.js', [], { DATABASE_URL: databaseUrl })
      expect(second.code).not.toBe(0)
      expect(second.output).toContain(`the database ${databaseUrl} is in use by another process (pid ${first.serverPid} on `)
      expect(second.output).not.toContain('Confab listening')

      const copy = await run('dist/copy-to-postgres.js', [databaseUrl, 'postgres://postgres@127.0.0.1:5432/postgres'], {})
      expect(copy.code).not.toBe(0)
      expect(copy.output).toContain(`the database ${databaseUrl} is in use by another process (pid ${first.serverPid} on `)

      // The first server is unharmed by the refusals.
      expect((await fetch(`${first.baseUrl}/readyz`)).status).toBe(200)

      await first.kill()
      const restarted = await startServer({ databaseUrl })
      started.push(restarted)
      expect((await fetch(`${restarted.baseUrl}/readyz`)).status).toBe(200)
    },
    START_TIMEOUT * 2,
  )

  it('refuses a second store in the same process, and takes the file once the first has closed', async () => {
    const databaseUrl = join(dir, 'in-process.db')
    const log = pino({ level: 'silent' })
    const first = await createServer({ databaseUrl, log })
    await expect(createServer({ databaseUrl, log })).rejects.toThrow(`the database ${databaseUrl} is in use by another process (pid ${process.pid} on `)
    await first.close()
    const again = await createServer({ databaseUrl, log })
    await again.close()
  })
})
