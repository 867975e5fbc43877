import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { documentedVariables } from '../helpers/deploy-files.ts'
import { dockerfile, execForm, keyValues, runtimeStage } from '../helpers/dockerfile.ts'
import { ROOT } from '../helpers/server.ts'

// No container runtime runs here: the Dockerfile's promises are checked as text, and what the image relies on
// at run time is proven by container-contract.test.ts.

const instructions = dockerfile()
const { stage: runtime, env } = runtimeStage(instructions)
const args = (keyword: string, within = runtime) => within.filter((i) => i.keyword === keyword).map((i) => i.args)
const runs = (within = runtime) => args('RUN', within).join('\n')

describe('the Dockerfile', () => {
  it('builds in two stages on one Node 24 slim image pinned by its full version', () => {
    const from = args('FROM', instructions)
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the Dockerfile's own ${NODE_IMAGE}, not a template
    expect(from).toEqual(['${NODE_IMAGE} AS build', '${NODE_IMAGE} AS runtime'])
    const [image] = args('ARG', instructions)
    expect(keyValues(image as string).NODE_IMAGE).toMatch(/^node:24\.\d+\.\d+-[a-z]+-slim$/)
  })

  it('compiles dist/ and packs the package in the build stage; installs it with the production dependencies only in the runtime stage', () => {
    const build = instructions.filter((i) => i.stage === 0)
    expect(runs(build)).toContain('npm ci ')
    expect(runs(build)).toContain('npm run build')
    expect(runs(build)).toContain('npm pack ')
    expect(args('COPY')).toEqual(['--from=build /app /app'])
    expect(runs()).toContain('npm ci --omit=dev')
    expect(runs()).not.toContain('npm run build')
  })

  it('runs as a user other than root, with its database in the /data volume, which that user owns', () => {
    const [user] = args('USER')
    expect(user).toBeDefined()
    expect(user).not.toMatch(/^(root|0)(:|$)/)
    expect(args('VOLUME')).toEqual(['/data'])
    expect(runs()).toContain(`chown ${user}:${user} /data`)
    // USER comes after the install (which writes as root) and before the command.
    const order = runtime.map((i) => i.keyword)
    expect(order.lastIndexOf('RUN')).toBeLessThan(order.indexOf('USER'))
  })

  it('sets what Confab defaults to wrongly inside a container: HOST on every interface, DATABASE_URL in the volume, a shutdown delay', () => {
    expect(env).toMatchObject({ HOST: '0.0.0.0', DATABASE_URL: '/data/confab.db', NODE_ENV: 'production' })
    expect(Number(env.SHUTDOWN_DELAY_SECONDS)).toBeGreaterThan(0)
    expect(args('EXPOSE')).toEqual([env.PORT])
    const documented = documentedVariables()
    for (const name of Object.keys(env)) expect(documented, name).toContain(name)
  })

  it('checks its health on /readyz with node (the slim image has no curl), at the port the environment sets', () => {
    const [healthcheck] = args('HEALTHCHECK')
    expect(healthcheck).toMatch(/--interval=\d+s .*--timeout=\d+s .*CMD \[/)
    const argv = execForm(healthcheck as string)
    expect(argv.slice(0, 2)).toEqual(['node', '-e'])
    expect(argv[2]).toContain('/readyz')
    expect(argv[2]).toContain('process.env.PORT')
    expect(healthcheck).not.toMatch(/curl|wget/)
  })

  it('starts node itself, so that SIGTERM reaches Confab (no npm, no shell in between)', () => {
    expect(args('STOPSIGNAL')).toEqual(['SIGTERM'])
    expect(execForm(args('CMD')[0] as string)).toEqual(['node', 'dist/main.js'])
    expect(args('ENTRYPOINT')).toEqual([])
  })
})

describe('.dockerignore', () => {
  const patterns = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('#'))
  const allowed = patterns.filter((line) => line.startsWith('!')).map((line) => line.slice(1).replace(/\/$/, ''))

  it('leaves everything out but what the build stage copies, each of which exists', () => {
    expect(patterns[0]).toBe('*')
    const copied = instructions.filter((i) => i.keyword === 'COPY' && !i.args.startsWith('--from')).flatMap((i) => i.args.split(' ').slice(0, -1))
    expect(new Set(copied)).toEqual(new Set(allowed))
    for (const path of allowed) expect(existsSync(join(ROOT, path)), path).toBe(true)
    for (const kept of ['node_modules', 'dist', '.git', 'data', 'test']) expect(allowed).not.toContain(kept)
  })
})
