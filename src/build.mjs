// Builds dist/: compiles src/ with tsc, bundles the web chat with esbuild, and bundles the server that
// `node dist/main.js` starts (see bundleServer).
//   node src/build.mjs             always builds (npm run build)
//   node src/build.mjs --if-stale  builds only when an input is newer than the last good build (npm start)
//   node src/build.mjs --prepare   as npm ci's `prepare`: builds, unless the dev dependencies were left out
//                                      (npm ci --omit=dev), where dist/ is expected to come built
// A build that succeeds leaves dist/.built, dated when the build started: an input edited during the build
// is newer than the stamp, so the next start rebuilds. The check stats the inputs (a few ms), so a start
// after `npm ci` goes straight to `node dist/main.js`, and a start after editing src/ still serves the edit.
// Directories are inputs too: deleting or adding a file changes its directory's mtime.
import { spawn } from 'node:child_process'
import { chmodSync, existsSync, readFileSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const stamp = join(root, 'dist/.built')
const inputs = ['src', 'tsconfig.json', 'package.json']

/** The newest mtime (ms) of a file, or of a directory and everything under it. */
function newest(path) {
  const stat = statSync(path)
  if (!stat.isDirectory()) return stat.mtimeMs
  let latest = stat.mtimeMs
  for (const entry of readdirSync(path)) latest = Math.max(latest, newest(join(path, entry)))
  return latest
}

function builtAt() {
  try {
    statSync(join(root, 'dist/main.js'))
    return statSync(stamp).mtimeMs
  } catch {
    return -Infinity
  }
}

const stale = () => inputs.reduce((latest, input) => Math.max(latest, newest(join(root, input))), -Infinity) > builtAt()

const require = createRequire(import.meta.url)
const tsc = () => {
  try {
    return require.resolve('typescript/bin/tsc')
  } catch {
    return undefined
  }
}

const say = (line) => process.stdout.write(`${line}\n`)
const seconds = (since) => `${((Date.now() - since) / 1000).toFixed(1)} s`

/**
 * One step of the build, said as it starts and ends, with a line every 5 s while it runs: `npm ci` runs
 * the build as `prepare` (half a minute on a busy machine), and a silent minute looks like a hang.
 */
async function step(number, total, title, work) {
  const started = Date.now()
  say(`Confab build ${number}/${total}: ${title}`)
  const ticker = setInterval(() => say(`  … still ${title} (${seconds(started)})`), 5_000)
  try {
    await work()
  } finally {
    clearInterval(ticker)
  }
  say(`  done in ${seconds(started)}`)
}

/** tsc in a process of its own: the event loop stays free for the step's progress lines. */
const compile = (compiler) =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [compiler, '-p', 'src'], { cwd: root, stdio: 'inherit' })
    child.once('error', reject)
    // status: tsc has printed its diagnostics; the build says nothing more of it.
    child.once('exit', (code) => (code === 0 ? resolve() : reject(Object.assign(new Error(`tsc exited with ${code}`), { status: code }))))
  })

async function build() {
  const startedAt = new Date()
  const compiler = tsc()
  if (compiler === undefined) throw new Error('TypeScript is not installed: run npm ci (with the dev dependencies) to build')
  await step(1, 3, 'compiling src/ to dist/ (tsc)', async () => {
    await compile(compiler)
    // The command line is package.json's bin: run by its #! line.
    chmodSync(join(root, 'dist/cli.js'), 0o755)
  })
  const esbuild = await import('esbuild')
  await step(2, 3, 'bundling the web chat and the agent console (esbuild)', async () => {
    // Each page's options as the server uses them (compiled just now), with its entry point in src/.
    const { webChatBundle } = await import('../dist/webchat/bundle.js')
    const { agentConsoleBundle } = await import('../dist/agent-console/bundle.js')
    const pages = [
      [webChatBundle, 'webchat/main.ts', 'webchat/webchat.js'],
      [agentConsoleBundle, 'agent-console/main.ts', 'agent-console/console.js'],
    ]
    await Promise.all(
      pages.map(([options, entry, out]) =>
        esbuild.build({ ...options, entryPoints: [join(root, 'src', entry)], outfile: join(root, 'dist', out), logLevel: 'warning' }),
      ),
    )
  })
  await step(3, 3, 'bundling the server (esbuild)', () => bundleServer(esbuild))
  writeFileSync(stamp, '')
  utimesSync(stamp, startedAt, startedAt)
  say(`Confab build: dist/ built in ${seconds(startedAt.getTime())}`)
}

const stubNote = '// The server, bundled by src/build.mjs (bundleServer).'

/**
 * The server `node dist/main.js` runs, as one module (dist/bundle/main.js) and the chunks it imports
 * when asked (PostgreSQL, Redis, graphql-jit): resolving and loading some 600 modules one by one
 * slowed the start-up (docs/internals/performance.md). dist/main.js becomes the one line that imports it, and so does
 * dist/read-replica.js of the read replicas' thread (dist/bundle/read-replica.js, sharing the
 * chunks); the rest of dist/ stays tsc's output, the library that `import … from 'confab'` loads.
 */
async function bundleServer(esbuild) {
  const outdir = join(root, 'dist/bundle')
  // Chunk names carry a hash: the last build's would otherwise stay beside the new ones.
  rmSync(outdir, { recursive: true, force: true })
  // A module that finds files next to itself (the migrations, the web chat's bundle) keeps finding
  // them from the bundle: its import.meta.url becomes the URL its own file has in dist/.
  const ownLocation = {
    name: 'own-import-meta-url',
    setup(build) {
      build.onLoad({ filter: /[\\/]dist[\\/].*\.js$/ }, ({ path }) => {
        const contents = readFileSync(path, 'utf8')
        if (!contents.includes('import.meta.url')) return undefined
        const own = `new URL(${JSON.stringify(relative(outdir, path).split('\\').join('/'))}, import.meta.url).href`
        return { contents: contents.replaceAll('import.meta.url', own), loader: 'js' }
      })
    },
  }
  // graphql ships each module twice: CommonJS (.js) and ES module (.mjs). For platform node esbuild
  // takes the CommonJS one, and code that imports a bundled CommonJS module reads each of its exports
  // through a getter: graphql's are read for every field of every request. Every import of graphql, deep paths too (graphql-jit's), is its ES module: one copy still.
  const graphqlDir = dirname(require.resolve('graphql/package.json'))
  const graphqlAsModule = {
    name: 'graphql-as-es-module',
    setup(build) {
      build.onResolve({ filter: /^graphql(\/|$)/ }, ({ path }) => {
        const file = join(graphqlDir, path.slice('graphql/'.length).replace(/\.m?js$/, '') || 'index')
        return { path: existsSync(`${file}.mjs`) ? `${file}.mjs` : join(file, 'index.mjs') }
      })
    },
  }
  // graphql's instanceOf, outside production (NODE_ENV), looks into every value that is not of the
  // class asked about, to tell a second copy of graphql by its class name: the type checks of every
  // field of every request ask about classes a value is not (about 1 % of a page's CPU). The bundle
  // holds one copy (graphqlAsModule), so a plain instanceof is the whole answer.
  const graphqlInstanceOf = {
    name: 'graphql-plain-instanceof',
    setup(build) {
      build.onLoad({ filter: /[\\/]graphql[\\/]jsutils[\\/]instanceOf\.mjs$/ }, () => ({
        contents: 'export const instanceOf = (value, constructor) => value instanceof constructor\n',
        loader: 'js',
      }))
    },
  }
  const entries = { main: join(root, 'dist/main.js'), 'read-replica': join(root, 'dist/read-replica.js') }
  for (const [name, entry] of Object.entries(entries)) {
    if (readFileSync(entry, 'utf8').startsWith(stubNote)) throw new Error(`dist/${name}.js is not what tsc made of src/${name}.ts: build again`)
  }
  await esbuild.build({
    entryPoints: entries,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    outdir,
    chunkNames: '[name]-[hash]',
    // Left in node_modules: native addons, the clients of the optional engines, the GraphiQL page
    // (9 MB of HTML), esbuild, and OpenTelemetry (imported only when traces are asked for). None imports graphql, of which the bundle must hold the one copy: a
    // second (graphql-jit's, were it left out) would not know the schema's types.
    external: ['better-sqlite3', 'pg', 'pg-native', 'ioredis', '@graphql-yoga/render-graphiql', 'esbuild', '@opentelemetry/*'],
    // CommonJS packages inside an ES module still call require.
    banner: { js: "import { createRequire as __confabCreateRequire } from 'node:module'; const require = __confabCreateRequire(import.meta.url);" },
    plugins: [ownLocation, graphqlAsModule, graphqlInstanceOf],
    logLevel: 'warning',
  })
  for (const [name, entry] of Object.entries(entries)) writeFileSync(entry, `${stubNote}\nimport './bundle/${name}.js'\n`)
}

if (process.argv.includes('--prepare') && tsc() === undefined) {
  process.stdout.write('Confab: the dev dependencies are not installed; not building (npm start needs dist/ built)\n')
} else if (!process.argv.includes('--if-stale') || stale()) {
  if (process.argv.includes('--if-stale')) process.stdout.write('Confab: src/ changed since the last build; building\n')
  try {
    await build()
  } catch (error) {
    // tsc has printed its diagnostics (stdio inherited); esbuild's error says what it is.
    if (error?.status === undefined) process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`)
    process.exit(1)
  }
}
