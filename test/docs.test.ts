import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

// The README is the first hour's page: short, with the test command CI runs, and every link of it and
// of docs/ leads somewhere (a file of the repository, and a heading of it when it names one).

const ROOT = fileURLToPath(new URL('..', import.meta.url))

const markdownFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return markdownFiles(path)
    return entry.name.endsWith('.md') ? [path] : []
  })

/** The lines of a markdown file outside fenced code blocks, inline code removed. */
const proseLines = (text: string): string[] => {
  let fenced = false
  return text.split('\n').flatMap((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced
      return []
    }
    return fenced ? [] : [line.replace(/`[^`]*`/g, '')]
  })
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens; repeats numbered. */
const anchorsOf = (text: string): Set<string> => {
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  let fenced = false
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced
    const heading = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)
    if (!heading?.[1]) continue
    const slug = heading[1]
      .toLowerCase()
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-')
    const count = seen.get(slug) ?? 0
    seen.set(slug, count + 1)
    anchors.add(count === 0 ? slug : `${slug}-${count}`)
  }
  return anchors
}

/** Every relative link of a file that does not lead to an existing file, or to a heading of it. */
const brokenLinks = (file: string): string[] => {
  const text = readFileSync(file, 'utf8')
  const broken: string[] = []
  for (const line of proseLines(text)) {
    for (const [, target] of line.matchAll(/\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      if (!target || /^[a-z][a-z0-9+.-]*:/i.test(target)) continue
      const [path = '', anchor] = target.split('#')
      const destination = path === '' ? file : resolve(dirname(file), decodeURIComponent(path))
      const where = `${relative(ROOT, file)}: ${target}`
      if (!existsSync(destination)) {
        broken.push(`${where} (no such file)`)
      } else if (anchor !== undefined && statSync(destination).isFile() && destination.endsWith('.md')) {
        if (!anchorsOf(readFileSync(destination, 'utf8')).has(anchor)) broken.push(`${where} (no such heading)`)
      }
    }
  }
  return broken
}

/** Each `<!-- include: examples/… -->` of a markdown file: the path, and the fenced block right after it. */
const includes = (file: string): { path: string; block: string | undefined }[] =>
  [...readFileSync(file, 'utf8').matchAll(/<!-- include: (\S+) -->\n(?:```\w*\n([\s\S]*?)```\n)?/g)].map(([, path = '', block]) => ({ path, block }))

/** The files of examples/, relative to the root. */
const exampleFiles = (dir = join(ROOT, 'examples')): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? exampleFiles(join(dir, entry.name)) : [relative(ROOT, join(dir, entry.name))],
  )

// What a walkthrough runs is a file of examples/, shown in the docs as it is; the others serve them.
const SUPPORT_FILES = ['examples/webchat/serve.mjs', 'examples/webchat/reach-confab.js', 'examples/webchat/events.jsx']

describe('the examples the docs walk through', () => {
  const docs = [join(ROOT, 'README.md'), ...markdownFiles(join(ROOT, 'docs'))]

  it('are shown verbatim: each marked code block is the file it names', () => {
    const shown = docs.flatMap((file) => includes(file).map((include) => ({ in: relative(ROOT, file), ...include })))
    expect(shown.length).toBeGreaterThan(0)
    for (const include of shown) {
      expect(existsSync(join(ROOT, include.path)), `${include.in} includes ${include.path}, which does not exist`).toBe(true)
      expect(include.block, `${include.in}: the code block after the include of ${include.path}`).toBe(readFileSync(join(ROOT, include.path), 'utf8'))
    }
  })

  it('are every file of examples/ but the ones that serve them', () => {
    const shown = new Set(docs.flatMap((file) => includes(file).map(({ path }) => path)))
    expect(
      exampleFiles()
        .filter((file) => !SUPPORT_FILES.includes(file))
        .sort(),
    ).toEqual([...shown].sort())
  })
})

describe('README and docs/', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')

  it('the README is at most 200 lines', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(201) // 200 lines and the final newline
  })

  it('the README shows the quick start and the test command CI runs', () => {
    expect(readme).toContain('npm ci && npm start')
    expect(readme).toMatch(/^npm test\b/m)
    expect(readme).toMatch(/^npm run test:postgres\b/m)
  })

  it('every relative link of README.md and docs/**/*.md leads to an existing file, and to a heading of it', () => {
    const files = [join(ROOT, 'README.md'), ...markdownFiles(join(ROOT, 'docs'))]
    expect(files.length).toBeGreaterThan(10)
    expect(files.flatMap(brokenLinks)).toEqual([])
  })

  it('every code block of README.md and docs/**/*.md is closed', () => {
    const files = [join(ROOT, 'README.md'), ...markdownFiles(join(ROOT, 'docs'))]
    const unclosed = files.filter(
      (file) =>
        readFileSync(file, 'utf8')
          .split('\n')
          .filter((line) => /^\s*(```|~~~)/.test(line)).length %
          2 !==
        0,
    )
    expect(unclosed.map((file) => relative(ROOT, file))).toEqual([])
  })
})

describe('the command line as the docs invoke it', () => {
  /** Every file a user reads or runs: the README, docs/, examples/, and the sources whose strings they are shown. */
  const textFiles = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) return entry.name === '__generated__' ? [] : textFiles(path)
      return /\.(md|ts|mjs|js|jsx|sh|ya?ml|json|service)$/.test(entry.name) ? [path] : []
    })

  it("never goes through npx, which would run the registry package named confab (someone else's) first", () => {
    const files = [join(ROOT, 'README.md'), ...textFiles(join(ROOT, 'docs')), ...textFiles(join(ROOT, 'examples')), ...textFiles(join(ROOT, 'src'))]
    expect(files.length).toBeGreaterThan(50)
    const saying = files.filter((file) => /\bnpx\s+(--\S+\s+)*confab\b/.test(readFileSync(file, 'utf8'))).map((file) => relative(ROOT, file))
    expect(saying).toEqual([])
  })
})
