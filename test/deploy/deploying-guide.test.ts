import { execFileSync, spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { loadConfig } from '../../src/config.ts'
import { documentedVariables } from '../helpers/deploy-files.ts'
import { runtimeStage } from '../helpers/dockerfile.ts'
import { ROOT } from '../helpers/server.ts'

// docs/guides/deploying.md, followed as far as this machine allows: no container, no systemd, no cluster
// runs here, so the guide is held to the files it installs, and the commands that make the secrets run.

const guide = readFileSync(join(ROOT, 'docs/guides/deploying.md'), 'utf8')
const tmp = mkdtempSync(join(tmpdir(), 'confab-guide-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

/** The text of one `## heading` section. */
const section = (heading: string) => {
  const start = guide.indexOf(`\n## ${heading}\n`)
  expect(start, heading).toBeGreaterThan(-1)
  const end = guide.indexOf('\n## ', start + 1)
  return guide.slice(start, end === -1 ? undefined : end)
}
/** The fenced code blocks of a text, `\` continuations joined. */
const blocks = (text: string) => [...text.matchAll(/```\w*\n([\s\S]*?)```/g)].map((match) => (match[1] as string).replace(/\\\n\s*/g, ''))
const shellLines = (text: string) =>
  blocks(text)
    .flatMap((block) => block.split('\n'))
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line !== '' && !line.startsWith('#'))

/** The commands of src/cli.ts (the keys of its `commands` table). */
const cliCommands = [...readFileSync(join(ROOT, 'src/cli.ts'), 'utf8').matchAll(/^ {2}'?([a-z][\w:-]*)'?: \{$/gm)].map((match) => match[1])

describe('docs/guides/deploying.md', () => {
  it("names files that exist, settings Confab documents (or the Compose .env's CONFAB_DOMAIN), and commands the command line has", () => {
    for (const [path] of guide.matchAll(/(?<![\w/.])(?:deploy\/[\w./-]*[\w-]|Dockerfile\b|\.dockerignore\b)/g))
      expect(existsSync(join(ROOT, path)), path).toBe(true)
    const documented = new Set([...documentedVariables(), 'CONFAB_DOMAIN'])
    for (const [name] of guide.matchAll(/\b[A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9]\b/g)) expect(documented, name).toContain(name)
    expect(readFileSync(join(ROOT, 'deploy/compose/single/.env.example'), 'utf8')).toContain('CONFAB_DOMAIN=')
    // `confab <command>` in the text, and the command line run in a container or from the installed package.
    const invoked = [...guide.matchAll(/(?:`confab |exec confab confab |dist\/cli\.js )([a-z][\w:-]*)/g)].map((match) => match[1])
    expect(invoked.length).toBeGreaterThan(3)
    for (const command of invoked) expect(cliCommands, command).toContain(command)
    expect(guide).not.toMatch(/npx confab/)
  })

  it("installs the package with systemd as the image does (npm pack, npm ci --omit=dev), where the unit runs it, with the unit's paths", () => {
    const lines = shellLines(section('One server with systemd'))
    const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8')
    for (const step of ['npm pack --ignore-scripts', '--strip-components=1', 'cp package-lock.json', 'npm ci --omit=dev']) {
      expect(lines.join('\n'), step).toContain(step)
      expect(dockerfile, step).toContain(step)
    }
    const unit = readFileSync(join(ROOT, 'deploy/systemd/confab.service'), 'utf8')
    expect(unit).toContain('ExecStart=/usr/bin/node /opt/confab/dist/main.js')
    expect(lines).toContain('tar -xzf confab-*.tgz -C /opt/confab --strip-components=1')
    for (const [, credential] of unit.matchAll(/^LoadCredential=[\w-]+:(\S+)$/gm)) {
      expect(lines, credential).toContain(`openssl rand -hex 32 > ${credential}`)
    }
    expect(unit).toContain('EnvironmentFile=/etc/confab/confab.env')
    expect(lines).toContain('install -m 0644 deploy/systemd/confab.env /etc/confab/confab.env')
    expect(lines).toContain('install -m 0644 deploy/systemd/confab.service /etc/systemd/system/confab.service')
    expect(lines).toContain('useradd --system --no-create-home --shell /usr/sbin/nologin confab')
    expect(unit).toMatch(/^User=confab$/m)
    // The proxy reaches the address the unit listens on; the command line opens the unit's database.
    const listen = /HOST=(\S+) PORT=(\d+)/.exec(unit)
    expect(blocks(section('One server with systemd'))).toContainEqual(expect.stringContaining(`reverse_proxy ${listen?.[1]}:${listen?.[2]}`))
    const database = /DATABASE_URL=(\S+)/.exec(unit)?.[1]
    for (const line of lines.filter((line) => line.includes('dist/cli.js')))
      expect(line).toContain(`sudo -u confab DATABASE_URL=${database} /opt/confab/dist/cli.js `)
  })

  it.each([
    ['One server with Docker Compose', 'deploy/compose/single'],
    ['Two instances with Docker Compose', 'deploy/compose/two-instances'],
  ])('"%s": its commands, run in a copy of %s, make the .env and every secret file the set-up reads, which Confab accepts', (heading, folder) => {
    const copy = join(tmp, folder)
    mkdirSync(copy, { recursive: true })
    cpSync(join(ROOT, folder), copy, { recursive: true })
    // Everything but what needs the network, Docker or the checkout's root.
    const runnable = shellLines(section(heading)).filter((line) => /^(cp|mkdir|openssl|printf) /.test(line))
    expect(runnable.length).toBeGreaterThan(3)
    execFileSync('sh', ['-ec', runnable.join('\n')], { cwd: copy })
    expect(readFileSync(join(copy, '.env'), 'utf8')).toMatch(/^CONFAB_DOMAIN=\S+$/m)

    const compose = parse(readFileSync(join(copy, 'compose.yaml'), 'utf8').replace(/\$\{CONFAB_DOMAIN[^}]*\}/g, 'chat.example.com'), { merge: true }) as {
      services: Record<string, { image: string; command?: string[]; environment: Record<string, string> }>
      secrets: Record<string, { file: string }>
    }
    for (const [name, { file }] of Object.entries(compose.secrets)) expect(readFileSync(join(copy, file), 'utf8').trim(), name).not.toBe('')
    const instance = Object.values(compose.services).find((service) => service.image === 'confab:local' && !service.command)
    const env: Record<string, string> = { ...runtimeStage().env, ...instance?.environment }
    for (const [variable, path] of Object.entries(env).filter(([variable]) => variable.endsWith('_FILE'))) {
      const secret = path.replace('/run/secrets/', '')
      env[variable] = join(copy, compose.secrets[secret]?.file as string)
    }
    const config = loadConfig(env)
    expect(config.bootstrap.adminToken).toMatch(/^[0-9a-f]{64}$/)
    expect(config.bootstrap.encryptionKey).toMatch(/^[0-9a-f]{64}$/)
    if (folder.endsWith('two-instances')) {
      const password = readFileSync(join(copy, 'secrets/postgres-password'), 'utf8').trim()
      expect(config.databaseUrl).toBe(`postgres://confab:${password}@postgres:5432/confab`)
    }
  })

  it('"Two instances on Kubernetes": its kubectl create secret makes the Secret whose files the Deployment reads', () => {
    const kubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' })
    const lines = shellLines(section('Two instances on Kubernetes'))
    const create = lines.find((line) => line.startsWith('kubectl create secret generic confab-secrets ')) as string
    const deployment = parse(readFileSync(join(ROOT, 'deploy/kubernetes/deployment.yaml'), 'utf8')) as {
      spec: { template: { spec: { containers: { env: { name: string; value: string }[] }[] } } }
    }
    const read = deployment.spec.template.spec.containers[0]?.env
      .filter((variable) => variable.name.endsWith('_FILE'))
      .map((variable) => variable.value.split('/').at(-1))
    const keys = [...create.matchAll(/--from-file=([\w-]+)=/g)].map((match) => match[1])
    expect(new Set(keys)).toEqual(new Set(read))
    if (kubectl.status !== 0) {
      console.warn("kubectl is not installed: the guide's `kubectl create secret` is checked as text, not run")
      return
    }
    const dir = join(tmp, 'kubernetes')
    mkdirSync(join(dir, 'secrets'), { recursive: true })
    for (const key of keys) execFileSync('sh', ['-ec', `openssl rand -hex 32 > secrets/${key}`], { cwd: dir })
    const secret = JSON.parse(execFileSync('sh', ['-ec', `${create} --dry-run=client -o json`], { cwd: dir, encoding: 'utf8' })) as {
      data: Record<string, string>
    }
    expect(Object.keys(secret.data).sort()).toEqual([...(read as string[])].sort())
  })
})
