import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { ensureBuilt, ROOT, runBuilt, START_TIMEOUT } from '../helpers/server.ts'

// The version: package.json's, told by the command line (and by GET /healthz: test/server/npm-start.test.ts).

const packageVersion = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version

beforeAll(ensureBuilt, START_TIMEOUT)

describe('confab --version', () => {
  it("prints package.json's version alone and exits 0; the help names it", { timeout: START_TIMEOUT }, async () => {
    expect(packageVersion).toMatch(/^\d+\.\d+\.\d+$/)
    expect(await runBuilt('dist/cli.js', ['--version'], {})).toEqual({ code: 0, output: `${packageVersion}\n` })
    const help = await runBuilt('dist/cli.js', ['--help'], {})
    expect(help.code).toBe(0)
    expect(help.output.split('\n')[0]).toBe(`confab ${packageVersion}`)
  })

  it('has a section in CHANGELOG.md', () => {
    expect(readFileSync(join(ROOT, 'CHANGELOG.md'), 'utf8')).toMatch(new RegExp(`^## ${packageVersion.replaceAll('.', '\\.')} — \\d{4}-\\d\\d-\\d\\d$`, 'm'))
  })
})
