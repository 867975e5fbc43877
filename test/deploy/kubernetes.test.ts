import { randomBytes } from 'node:crypto'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { parse, parseAllDocuments } from 'yaml'
import { loadConfig, secretVariables } from '../../src/config.ts'
import { documentedVariables } from '../helpers/deploy-files.ts'
import { runtimeStage } from '../helpers/dockerfile.ts'
import { ROOT } from '../helpers/server.ts'

/** A secret as the guides make it (openssl rand -hex 32): the start refuses weak ones. */
const STRONG_SECRET = randomBytes(32).toString('hex')

// deploy/kubernetes as `kubectl kustomize` renders it (offline: it reads the folder only). Where kubectl is
// absent, the resource files the kustomization lists are read as they are (the one difference: the image
// keeps its short name), and the test says so.

interface EnvVar {
  name: string
  value?: string
  valueFrom?: unknown
}
interface Probe {
  httpGet: { path: string; port: string }
  periodSeconds: number
  failureThreshold: number
}
interface Container {
  name: string
  image: string
  command?: string[]
  env?: EnvVar[]
  ports?: { name: string; containerPort: number }[]
  readinessProbe?: Probe
  livenessProbe?: Probe
  startupProbe?: Probe
  securityContext: { allowPrivilegeEscalation: boolean; readOnlyRootFilesystem: boolean; capabilities: { drop: string[] } }
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[]
}
interface Manifest {
  kind: string
  metadata: { name: string; labels?: Record<string, string> }
  spec: Record<string, any>
}

const folder = join(ROOT, 'deploy/kubernetes')
const kustomization = parse(readFileSync(join(folder, 'kustomization.yaml'), 'utf8')) as {
  resources: string[]
  images: { name: string; newName: string; newTag: string }[]
}

function kubectl(): string | undefined {
  try {
    return execFileSync('kubectl', ['version', '--client'], { encoding: 'utf8' }) && 'kubectl'
  } catch {
    return undefined
  }
}

function render(): { manifests: Manifest[]; rendered: boolean } {
  if (kubectl()) {
    const output = execFileSync('kubectl', ['kustomize', folder], { encoding: 'utf8' })
    return { manifests: parseAllDocuments(output).map((document) => document.toJS() as Manifest), rendered: true }
  }
  console.warn('kubectl is not installed: deploy/kubernetes is checked as written, not as `kubectl kustomize` renders it')
  const manifests = kustomization.resources.flatMap((file) =>
    parseAllDocuments(readFileSync(join(folder, file), 'utf8'), { version: '1.1' }).map((document) => document.toJS() as Manifest),
  )
  return { manifests, rendered: false }
}

const { manifests, rendered } = render()
const byKind = (kind: string) => manifests.find((manifest) => manifest.kind === kind) as Manifest
const deployment = byKind('Deployment')
const pod = deployment.spec.template.spec
const [confab] = pod.containers as [Container]
const [migrate] = pod.initContainers as [Container]
const envOf = (container: Container) => Object.fromEntries((container.env ?? []).map((variable) => [variable.name, variable.value]))
const { env: imageEnv } = runtimeStage()
const tmp = mkdtempSync(join(tmpdir(), 'confab-kubernetes-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

describe('deploy/kubernetes (kubectl kustomize)', () => {
  it('renders a Deployment of two instances, its Service and a disruption budget, with the image the kustomization names', () => {
    expect(manifests.map((manifest) => manifest.kind).sort()).toEqual(['Deployment', 'PodDisruptionBudget', 'Service'])
    expect(deployment.spec.replicas).toBe(2)
    expect(deployment.spec.strategy.rollingUpdate).toEqual({ maxSurge: 1, maxUnavailable: 0 })
    const [image] = kustomization.images
    const expected = rendered ? `${image?.newName}:${image?.newTag}` : image?.name
    expect([confab.image, migrate.image]).toEqual([expected, expected])
  })

  it('applies the migrations with `confab migrate` in an init container, on the database the instance uses', () => {
    expect(migrate.command).toEqual(['confab', 'migrate'])
    expect(envOf(migrate)).toEqual({ DATABASE_URL: envOf(confab).DATABASE_URL, DATABASE_URL_FILE: envOf(confab).DATABASE_URL_FILE })
    expect(migrate.volumeMounts).toEqual(confab.volumeMounts?.filter((mount) => mount.name === 'secrets'))
  })

  it('probes /readyz for readiness and /healthz for liveness, on the port the image listens on', () => {
    expect(confab.ports).toEqual([{ name: 'http', containerPort: Number(imageEnv.PORT) }])
    expect(confab.readinessProbe?.httpGet).toEqual({ path: '/readyz', port: 'http' })
    expect(confab.livenessProbe?.httpGet).toEqual({ path: '/healthz', port: 'http' })
    expect(confab.startupProbe?.httpGet).toEqual({ path: '/healthz', port: 'http' })
  })

  it('stops gracefully: readiness fails within the shutdown delay, and the grace period outlasts the delay', () => {
    const delay = Number(envOf(confab).SHUTDOWN_DELAY_SECONDS)
    const readiness = confab.readinessProbe as Probe
    expect(readiness.periodSeconds * readiness.failureThreshold).toBeLessThan(delay)
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(delay + 30)
  })

  it('reads every secret from the mounted Secret through *_FILE, never from the environment', () => {
    const env = confab.env ?? []
    expect(env.filter((variable) => variable.valueFrom !== undefined)).toEqual([])
    const mount = confab.volumeMounts?.find((volumeMount) => volumeMount.name === 'secrets')
    expect(mount).toEqual({ name: 'secrets', mountPath: '/run/secrets/confab', readOnly: true })
    const volume = (pod.volumes as { name: string; secret?: { secretName: string; defaultMode: number } }[]).find((entry) => entry.name === 'secrets')
    expect(volume?.secret).toEqual({ secretName: 'confab-secrets', defaultMode: 0o440 })
    for (const secret of secretVariables) {
      expect(envOf(confab)[secret] ?? '', secret).toBe('')
      expect(envOf(confab)[`${secret}_FILE`], secret).toMatch(/^\/run\/secrets\/confab\/[a-z-]+$/)
    }
  })

  it('starts with a configuration Confab accepts, of documented settings only', () => {
    const documented = documentedVariables()
    const env: Record<string, string> = { ...imageEnv }
    for (const [name, value = ''] of Object.entries(envOf(confab))) {
      expect(documented, name).toContain(name)
      env[name] = value
      if (!name.endsWith('_FILE')) continue
      const file = join(tmp, name)
      writeFileSync(
        file,
        name === 'DATABASE_URL_FILE'
          ? 'postgres://confab:password@postgres:5432/confab\n'
          : name === 'REDIS_URL_FILE'
            ? 'redis://:password@redis:6379\n'
            : `${STRONG_SECRET}\n`,
      )
      env[name] = file
    }
    const config = loadConfig(env)
    expect(config).toMatchObject({
      host: '0.0.0.0',
      databaseUrl: 'postgres://confab:password@postgres:5432/confab',
      redisUrl: 'redis://:password@redis:6379',
      shutdownDelayMs: 10_000,
    })
    expect(config.trustProxy.length).toBeGreaterThan(0)
    expect(config.publicUrl).toMatch(/^https:\/\//)
  })

  it('runs as a user other than root, without privileges, on a read-only root file system with /data and /tmp writable', () => {
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000, runAsGroup: 1000 })
    expect(pod.automountServiceAccountToken).toBe(false)
    for (const container of [confab, migrate]) {
      expect(container.securityContext, container.name).toEqual({
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        capabilities: { drop: ['ALL'] },
      })
    }
    const writable = (confab.volumeMounts ?? []).filter((mount) => !mount.readOnly).map((mount) => mount.mountPath)
    expect(writable.sort()).toEqual(['/data', '/tmp'])
    expect(writable).toContain(imageEnv.DATABASE_URL?.replace(/\/[^/]+$/, ''))
  })

  it("routes the Service to the pods' http port; the disruption budget keeps one instance up", () => {
    const service = byKind('Service')
    expect(service.spec.selector).toEqual(deployment.spec.template.metadata.labels)
    expect(service.spec.ports).toEqual([{ name: 'http', port: 80, targetPort: 'http' }])
    const budget = byKind('PodDisruptionBudget')
    expect(budget.spec).toEqual({ minAvailable: 1, selector: deployment.spec.selector })
  })
})
