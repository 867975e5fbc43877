import { randomBytes } from 'node:crypto'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import proxyaddr from 'proxy-addr'
import { afterAll, describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { loadConfig, secretVariables } from '../../src/config.ts'
import { documentedVariables } from '../helpers/deploy-files.ts'
import { runtimeStage } from '../helpers/dockerfile.ts'
import { ROOT } from '../helpers/server.ts'

/** A secret as the guides make it (openssl rand -hex 32): the start refuses weak ones. */
const STRONG_SECRET = randomBytes(32).toString('hex')

// `docker compose config` cannot run here (no Docker daemon, no compose plugin): the files are parsed as YAML
// (merge keys on, as Compose reads them) and held to what Compose and Confab need of them.

interface Service {
  image?: string
  build?: string
  command?: string[]
  environment?: Record<string, string>
  secrets?: string[]
  volumes?: string[]
  depends_on?: Record<string, { condition: string }>
  healthcheck?: { test: string[] }
  stop_grace_period?: string
  read_only?: boolean
  networks?: Record<string, { ipv4_address?: string } | null>
}
interface ComposeFile {
  services: Record<string, Service>
  secrets: Record<string, { file: string }>
  volumes: Record<string, unknown>
  networks: Record<string, { ipam: { config: { subnet: string }[] } }>
}

const DOMAIN = 'chat.example.com'
/** Compose's interpolation of `${CONFAB_DOMAIN:?…}`, with the value an operator puts in .env. */
const interpolate = (text: string) => text.replace(/\$\{CONFAB_DOMAIN(?::\?[^}]*)?\}/g, DOMAIN)

const { env: imageEnv } = runtimeStage()
const documented = documentedVariables()
const tmp = mkdtempSync(join(tmpdir(), 'confab-compose-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

const setups = [
  { folder: 'deploy/compose/single', instances: ['confab'] },
  { folder: 'deploy/compose/two-instances', instances: ['confab-1', 'confab-2'] },
]

describe.each(setups)('$folder/compose.yaml', ({ folder, instances }) => {
  const dir = join(ROOT, folder)
  const raw = readFileSync(join(dir, 'compose.yaml'), 'utf8')
  const compose = parse(interpolate(raw), { merge: true }) as ComposeFile
  const services = Object.entries(compose.services)
  const confabs = services.filter(([, service]) => service.image === 'confab:local')
  const serving = confabs.filter(([, service]) => service.command === undefined)
  const caddy = compose.services.caddy as Service

  it('interpolates nothing but CONFAB_DOMAIN, which .env.example sets', () => {
    expect([...raw.matchAll(/\$\{(\w+)/g)].map((match) => match[1])).toEqual(expect.arrayContaining(['CONFAB_DOMAIN']))
    expect(new Set([...raw.matchAll(/\$\{(\w+)/g)].map((match) => match[1]))).toEqual(new Set(['CONFAB_DOMAIN']))
    expect(readFileSync(join(dir, '.env.example'), 'utf8')).toMatch(/^CONFAB_DOMAIN=\S+$/m)
  })

  it('runs the image the Dockerfile builds, and every other image at a pinned tag', () => {
    expect(serving.map(([name]) => name)).toEqual(instances)
    for (const [name, service] of confabs) expect(existsSync(join(resolve(dir, service.build as string), 'Dockerfile')), name).toBe(true)
    for (const [name, service] of services) expect(service.image, name).toMatch(/^[a-z0-9/.-]+:[\w.-]+$/)
    for (const [name, service] of services) expect(service.image, name).not.toMatch(/:latest$/)
  })

  it('gives each instance documented settings only, its secrets as *_FILE from Compose secrets that exist, never a secret in the environment', () => {
    for (const [name, service] of confabs) {
      const environment = service.environment ?? {}
      for (const variable of Object.keys(environment)) expect(documented, `${name}: ${variable}`).toContain(variable)
      for (const secret of ['CONFAB_ADMIN_TOKEN', 'CONFAB_ENCRYPTION_KEY']) {
        expect(environment[secret], `${name}: ${secret}`).toBeUndefined()
        expect(environment[`${secret}_FILE`], `${name}: ${secret}_FILE`).toMatch(/^\/run\/secrets\//)
      }
      for (const [variable, value] of Object.entries(environment).filter(([variable]) => variable.endsWith('_FILE'))) {
        const secret = value.replace('/run/secrets/', '')
        expect(service.secrets, `${name}: ${variable}`).toContain(secret)
        expect(compose.secrets[secret]?.file, `${name}: ${variable}`).toMatch(/^\.\/secrets\//)
      }
      expect(service.read_only, name).toBe(true)
    }
  })

  it("starts each instance with a configuration Confab accepts (the image's environment, then the service's, its secret files in place)", () => {
    for (const [name, service] of serving) {
      const env: Record<string, string> = { ...imageEnv, ...service.environment }
      for (const [variable, _value] of Object.entries(env).filter(([variable]) => variable.endsWith('_FILE'))) {
        const file = join(tmp, `${name}-${variable}`)
        writeFileSync(file, variable === 'DATABASE_URL_FILE' ? 'postgres://confab:password@postgres:5432/confab\n' : `${STRONG_SECRET}\n`)
        env[variable] = file
      }
      const config = loadConfig(env)
      expect(config.publicUrl).toBe(`https://${DOMAIN}`)
      expect(config.host).toBe('0.0.0.0')
      if (instances.length > 1) {
        expect(config.databaseUrl, name).toMatch(/^postgres:\/\//)
        expect(config.redisUrl, name).toBe('redis://redis:6379')
      } else {
        expect(config.databaseUrl).toBe('/data/confab.db')
        expect(service.volumes).toContainEqual(expect.stringMatching(/^[a-z-]+:\/data$/))
      }
      expect(secretVariables.filter((secret) => service.environment?.[secret] !== undefined && service.environment[secret] !== '')).toEqual(
        instances.length > 1 ? ['REDIS_URL'] : [],
      )
    }
  })

  it('waits on what each service needs by a condition (healthy, or completed), and each service waited on healthy has a health check', () => {
    for (const [name, service] of services) {
      for (const [needed, { condition }] of Object.entries(service.depends_on ?? {})) {
        expect(['service_healthy', 'service_completed_successfully'], `${name} → ${needed}`).toContain(condition)
        expect(compose.services[needed], `${name} → ${needed}`).toBeDefined()
        if (condition !== 'service_healthy') continue
        const target = compose.services[needed] as Service
        // An instance's is the image's HEALTHCHECK (Dockerfile).
        expect(target.healthcheck !== undefined || target.image === 'confab:local', `${needed} has a health check`).toBe(true)
      }
    }
    expect(Object.keys(caddy.depends_on ?? {}).sort()).toEqual([...instances].sort())
  })

  it('lets an instance finish its shutdown delay before Compose kills it', () => {
    for (const [name, service] of serving) {
      expect(Number.parseInt(service.stop_grace_period ?? '10s', 10), name).toBeGreaterThan(Number(imageEnv.SHUTDOWN_DELAY_SECONDS) + 10)
    }
  })

  it('keeps the data in named volumes', () => {
    const named = services
      .flatMap(([, service]) => (service.volumes ?? []).map((volume) => volume.split(':')[0] as string))
      .filter((source) => !source.startsWith('.'))
    expect(new Set(named)).toEqual(new Set(Object.keys(compose.volumes)))
  })

  it("puts Caddy in front with TLS for the PUBLIC_URL domain, to every instance, on /readyz; TRUST_PROXY is Caddy's fixed address alone", () => {
    const caddyfile = readFileSync(join(dir, 'Caddyfile'), 'utf8')
    expect(caddy.image).toMatch(/^caddy:/)
    expect(caddy.environment?.CONFAB_DOMAIN).toBe(DOMAIN)
    expect(caddyfile).toMatch(/^\{\$CONFAB_DOMAIN\} \{$/m)
    expect(caddy.volumes).toContain('./Caddyfile:/etc/caddy/Caddyfile:ro')
    const upstreams = /reverse_proxy ([^{\n]+)/.exec(caddyfile)?.[1]?.trim().split(/\s+/)
    expect(upstreams).toEqual(instances.map((name) => `${name}:${imageEnv.PORT}`))
    expect(caddyfile).toMatch(/health_uri \/readyz/)

    const address = caddy.networks?.confab?.ipv4_address as string
    const [subnet] = compose.networks.confab?.ipam.config.map((entry) => entry.subnet) ?? []
    expect(proxyaddr.compile(subnet as string)(address, 0)).toBe(true)
    for (const [name, service] of serving) expect(service.environment?.TRUST_PROXY, name).toBe(address)
  })
})

describe('deploy/compose/two-instances: migrations', () => {
  const compose = parse(interpolate(readFileSync(join(ROOT, 'deploy/compose/two-instances/compose.yaml'), 'utf8')), { merge: true }) as ComposeFile

  it('applies them once with `confab migrate` (the image links the command) after PostgreSQL is healthy, before either instance starts', () => {
    const migrate = compose.services.migrate as Service
    expect(migrate.command).toEqual(['confab', 'migrate'])
    expect(migrate.depends_on).toEqual({ postgres: { condition: 'service_healthy' } })
    expect(readFileSync(join(ROOT, 'Dockerfile'), 'utf8')).toContain('ln -s /app/dist/cli.js /usr/local/bin/confab')
    for (const name of ['confab-1', 'confab-2']) {
      expect(compose.services[name]?.depends_on?.migrate).toEqual({ condition: 'service_completed_successfully' })
    }
    expect(dirname(compose.secrets.postgres_password?.file as string)).toBe('./secrets')
    expect(compose.services.postgres?.environment?.POSTGRES_PASSWORD_FILE).toBe('/run/secrets/postgres_password')
  })
})
