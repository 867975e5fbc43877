import { readdirSync, readFileSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const src = fileURLToPath(new URL('../src', import.meta.url))

const filesUnder = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  )

interface Import {
  file: string
  /** The src/ folder (or top-level file) imported, or the package name. */
  target: string
  typeOnly: boolean
}

function importsOf(layer: string): Import[] {
  return filesUnder(join(src, layer)).flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(/^(?:import|export)(\s+type)?[^'"]*?from\s+['"]([^'"]+)['"]/gm)].map(
      ([, type, spec = '']) => ({
        file: relative(src, file),
        target: spec.startsWith('.') ? (relative(src, resolve(file, '..', spec)).split('/')[0] ?? '') : spec,
        typeOnly: type !== undefined,
      }),
    ),
  )
}

const describeAll = (imports: Import[]) => imports.map(({ file, target }) => `${file} -> ${target}`)

describe('import direction: rest -> graphql -> domain -> db', () => {
  it('db imports nothing from src', () => {
    expect(describeAll(importsOf('db').filter((i) => i.target !== 'db' && i.target.endsWith('.ts')))).toEqual([])
  })

  it('domain imports only the domain and db, and nothing of GraphQL or HTTP', () => {
    const outside = importsOf('domain').filter(
      (i) => ['graphql', 'rest', 'http', 'auth', 'app.ts'].includes(i.target) || /graphql|yoga|whatwg/.test(i.target),
    )
    expect(describeAll(outside)).toEqual([])
  })

  it('graphql reaches the database only through domain verbs (row types aside)', () => {
    const values = importsOf('graphql').filter((i) => i.target === 'db' && !i.typeOnly)
    expect(describeAll(values)).toEqual([])
    expect(describeAll(importsOf('graphql').filter((i) => ['rest', 'app.ts'].includes(i.target)))).toEqual([])
  })

  it('rest imports neither the domain nor the database', () => {
    const forbidden = importsOf('rest').filter((i) => ['domain', 'db', 'drizzle-orm', 'better-sqlite3'].includes(i.target))
    expect(describeAll(forbidden)).toEqual([])
  })
})
