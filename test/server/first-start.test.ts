import { mkdtempSync, rmSync } from 'node:fs'
import { createServer as createNetServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ensureBuilt, runBuilt, START_TIMEOUT, startServer } from '../helpers/server.ts'

// A first start that cannot listen must not create the tenant: its admin token is stored as a digest
// and printed once, so a tenant made by a start that then failed would leave nothing to show.

const dir = mkdtempSync(join(tmpdir(), 'confab-first-start-'))
let taken: Server
let takenPort: number

beforeAll(async () => {
  await ensureBuilt()
  taken = createNetServer()
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve))
  takenPort = (taken.address() as { port: number }).port
}, START_TIMEOUT)

afterAll(async () => {
  await new Promise((resolve) => taken?.close(resolve))
  rmSync(dir, { recursive: true, force: true })
})

describe('a first start on a taken port', () => {
  it(
    'exits 1 naming PORT (no stack trace), creates nothing; the next start on a free port shows the bootstrap values once',
    async () => {
      const databaseUrl = join(dir, 'confab.db')
      const failed = await runBuilt('dist/main.js', [], { PORT: String(takenPort), DATABASE_URL: databaseUrl })
      expect(failed.code).toBe(1)
      expect(failed.output).toContain(
        `Confab failed to start: port ${takenPort} on 127.0.0.1 is in use by another process (PORT=${takenPort}): stop that process, or set PORT to a free port\n`,
      )
      expect(failed.output).not.toMatch(/^\s+at /m)
      expect(failed.output).not.toContain('Confab bootstrap')

      // The metrics listener's port is named as its own variable.
      const metricsTaken = await runBuilt('dist/main.js', [], { PORT: '0', METRICS_PORT: String(takenPort), DATABASE_URL: databaseUrl })
      expect(metricsTaken.code).toBe(1)
      expect(metricsTaken.output).toContain(`(METRICS_PORT=${takenPort}): stop that process, or set METRICS_PORT to a free port`)
      expect(metricsTaken.output).not.toContain('Confab bootstrap')

      const server = await startServer({ databaseUrl })
      let adminToken: string
      let workspaceId: string
      try {
        expect(server.stdout()).toContain('Confab bootstrap: created the default tenant. These values are printed once; keep them.')
        adminToken = /admin token:\s+(\S+)/.exec(server.stdout())?.[1] as string
        workspaceId = /workspace id:\s+(\S+)/.exec(server.stdout())?.[1] as string
        const bots = await fetch(`${server.baseUrl}/v1/admin/bots`, { headers: { authorization: `Bearer ${adminToken}`, 'x-workspace-id': workspaceId } })
        expect(bots.status).toBe(200)
      } finally {
        await server.stop()
      }

      // Printed once: the start after prints no bootstrap.
      const again = await startServer({ databaseUrl })
      try {
        expect(again.stdout()).not.toContain('Confab bootstrap')
        expect(again.stdout()).not.toContain(adminToken)
      } finally {
        await again.stop()
      }
    },
    START_TIMEOUT * 2,
  )
})
