import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const src = fileURLToPath(new URL('../src', import.meta.url))

/*
 * The layers of src/, lowest first: a module imports only from its own layer or a lower one. Bots sit
 * beside the domain (they use it; it never knows them). The REST layer is a table of declarations over
 * GraphQL documents, so it also skips nothing: it reaches the domain and the database only through GraphQL.
 * Contracts are pure schemas of what an API takes, which the domain reads inputs with and the REST
 * layer publishes (no rule, no import of Confab's).
 */
const layers: Record<string, number> = {
  config: 0,
  contracts: 0,
  db: 1,
  tracing: 1,
  domain: 2,
  auth: 3,
  signals: 3,
  limits: 3,
  bots: 3,
  graphql: 4,
  rest: 5,
  http: 6,
  openapi: 6,
  webchat: 6,
  'agent-console': 6,
  app: 6,
  server: 7,
  main: 8,
}

/** Where a path under src/ belongs (a folder by its name; the top-level files by what they are). */
function layerOf(path: string): string {
  const [first = ''] = relative(src, path).split('/')
  const byTopLevelFile: Record<string, string> = {
    'config.ts': 'config',
    'logger.ts': 'config',
    'version.ts': 'config',
    'app.ts': 'app',
    'wiring.ts': 'app',
    'bootstrap.ts': 'app',
    'server.ts': 'server',
    'index.ts': 'server',
    'main.ts': 'main',
    'read-replica.ts': 'main',
    'copy-to-postgres.ts': 'main',
    'cli.ts': 'main',
    'cli-database.ts': 'main',
    __generated__: 'graphql',
  }
  const layer = byTopLevelFile[first] ?? first
  if (!(layer in layers)) throw new Error(`src/${first} belongs to no layer: add it to the architecture test`)
  return layer
}

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : /\.tsx?$/.test(entry.name) ? [join(dir, entry.name)] : [],
  )

/** The file or folder a relative specifier names, as Node or TypeScript would find it (a folder means its index). */
function resolveSpecifier(file: string, specifier: string): string {
  const target = resolve(file, '..', specifier)
  const candidates = [target, `${target}.ts`, join(target, 'index.ts')]
  return candidates.find((path) => existsSync(path)) ?? target
}

interface Import {
  file: string
  specifier: string
  /** The layer of a src/ module, or undefined for a package. */
  layer: string | undefined
  typeOnly: boolean
}

// Static imports and re-exports (also multi-line and side-effect only) and dynamic import().
const importPattern = /(?:^|\n)\s*(?:import|export)(\s+type)?(?:[^'"]*?\bfrom)?\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g

function importsOf(file: string): Import[] {
  return [...readFileSync(file, 'utf8').matchAll(importPattern)].map(([, type, staticSpecifier, dynamicSpecifier]) => {
    const specifier = staticSpecifier ?? dynamicSpecifier ?? ''
    const local = specifier.startsWith('.')
    return {
      file: relative(src, file),
      specifier,
      layer: local ? layerOf(resolveSpecifier(file, specifier)) : undefined,
      typeOnly: type !== undefined,
    }
  })
}

const allImports = sourceFiles(src).flatMap(importsOf)
const describeAll = (imports: Import[]) => imports.map(({ file, specifier }) => `${file} -> ${specifier}`)

describe('import direction: config/contracts → db/tracing → domain → auth/signals/bots → graphql → rest → http/app/openapi → main', () => {
  it.each(Object.keys(layers))('%s imports only from its own layer or below', (layer) => {
    const upward = allImports.filter((i) => layerOf(join(src, i.file)) === layer && i.layer !== undefined && (layers[i.layer] ?? 0) > (layers[layer] ?? 0))
    expect(describeAll(upward)).toEqual([])
  })

  it('rest reaches the domain and the database only through GraphQL', () => {
    const skipping = allImports.filter(
      (i) =>
        layerOf(join(src, i.file)) === 'rest' &&
        (['domain', 'db', 'auth', 'signals', 'bots'].includes(i.layer ?? '') || ['drizzle-orm', 'better-sqlite3'].some((name) => i.specifier.startsWith(name))),
    )
    expect(describeAll(skipping)).toEqual([])
  })

  it('graphql reads database rows by their types only: every query is a domain verb', () => {
    const values = allImports.filter((i) => layerOf(join(src, i.file)) === 'graphql' && i.layer === 'db' && !i.typeOnly)
    expect(describeAll(values)).toEqual([])
  })

  it('the domain imports nothing of GraphQL or HTTP servers', () => {
    const servers = allImports.filter(
      (i) => layerOf(join(src, i.file)) === 'domain' && /^(graphql|graphql-yoga|@whatwg-node|@pothos|ws)(\/|$)/.test(i.specifier),
    )
    expect(describeAll(servers)).toEqual([])
  })

  it('sees every import, including one that resolves to a folder index', () => {
    const folderImport = importsOf(join(src, 'rest', 'route.ts')).length
    expect(folderImport).toBeGreaterThan(0)
    // A specifier naming a folder resolves to that folder's layer, not to a missing file.
    expect(layerOf(resolveSpecifier(join(src, 'rest', 'route.ts'), '../domain'))).toBe('domain')
    expect(statSync(join(src, 'domain')).isDirectory()).toBe(true)
  })
})

/** The circles of an import graph, each named once, from its least file round to it again. */
function circlesIn(edges: ReadonlyMap<string, Iterable<string>>): string[] {
  const circles = new Set<string>()
  const state = new Map<string, 'open' | 'done'>()
  const path: string[] = []
  const visit = (file: string) => {
    state.set(file, 'open')
    path.push(file)
    for (const next of edges.get(file) ?? []) {
      if (state.get(next) === 'open') {
        const circle = path.slice(path.indexOf(next))
        // The same circle entered by another of its files gets the same name.
        const start = circle.indexOf([...circle].sort()[0] ?? next)
        const named = [...circle.slice(start), ...circle.slice(0, start)]
        circles.add([...named, named[0]].join(' -> '))
      } else if (!state.has(next)) visit(next)
    }
    path.pop()
    state.set(file, 'done')
  }
  for (const file of [...edges.keys()].sort()) if (!state.has(file)) visit(file)
  return [...circles]
}

/** Which src/ files each src/ file imports, type imports included. */
const importGraph = new Map(
  sourceFiles(src).map((file) => [
    relative(src, file),
    importsOf(file)
      .filter((i) => i.specifier.startsWith('.'))
      .map((i) => relative(src, resolveSpecifier(file, i.specifier))),
  ]),
)

describe('storage: engines beneath one shared storage API (src/db)', () => {
  /** The engine folder a src/db path lies in, if any. */
  const engineOf = (path: string) => /^db\/(sqlite|postgres)\//.exec(path)?.[1]
  const dbImports = allImports.filter((i) => i.file.startsWith('db/') && i.specifier.startsWith('.'))
  const target = (i: Import) => relative(src, resolveSpecifier(join(src, i.file), i.specifier))
  /**
   * The tables and shapes are typed as SQLite's (the reference dialect: docs/internals/storage.md), so
   * shared storage may name its types: a type-only import of them is no dependency on the SQLite
   * engine. Another engine sees them through shared storage (src/db/schema.ts re-exports Dialect).
   */
  const referenceTypes = (i: Import) => i.typeOnly && ['db/sqlite/dialect.ts', 'db/sqlite/connection.ts'].includes(target(i))

  it('shared storage imports no engine folder (but open.ts, which picks the engine DATABASE_URL names)', () => {
    const reaching = dbImports.filter((i) => !engineOf(i.file) && i.file !== 'db/open.ts' && engineOf(target(i)) && !referenceTypes(i))
    expect(describeAll(reaching)).toEqual([])
  })

  it('an engine imports nothing of another engine, not even a type', () => {
    const crossing = dbImports.filter((i) => {
      const from = engineOf(i.file)
      const to = engineOf(target(i))
      return from !== undefined && to !== undefined && from !== to
    })
    expect(describeAll(crossing)).toEqual([])
  })

  it('sees the engines import shared storage (the rule above has something to look at)', () => {
    expect(dbImports.some((i) => engineOf(i.file) === 'postgres' && target(i) === 'db/query.ts')).toBe(true)
    expect(dbImports.some((i) => i.file === 'db/open.ts' && engineOf(target(i)) === 'postgres')).toBe(true)
  })
})

describe('import circles', () => {
  it('no src/ file reaches itself through its imports, type imports included', () => {
    expect(circlesIn(importGraph)).toEqual([])
  })

  it('names each circle of a graph once, whichever file it is entered by', () => {
    const graph = new Map([
      ['c.ts', ['a.ts']],
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts', 'd.ts']],
      ['d.ts', ['d.ts']],
      ['e.ts', ['a.ts']],
    ])
    expect(circlesIn(graph)).toEqual(['a.ts -> b.ts -> c.ts -> a.ts', 'd.ts -> d.ts'])
    expect(
      circlesIn(
        new Map([
          ['a.ts', ['b.ts']],
          ['b.ts', []],
        ]),
      ),
    ).toEqual([])
  })

  it('counts a type-only import as an edge', () => {
    const typeOnly = allImports.find((i) => i.typeOnly && i.specifier.startsWith('.'))
    expect(typeOnly).toBeDefined()
    if (typeOnly) expect(importGraph.get(typeOnly.file)).toContain(relative(src, resolveSpecifier(join(src, typeOnly.file), typeOnly.specifier)))
  })
})
