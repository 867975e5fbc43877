// Preloaded into a server process (NODE_OPTIONS=--import …) to tell which packages it loaded: every
// ES module it loads (a loader hook, on the loader's own thread) and, as it exits, every CommonJS
// module in require's cache, appended to MODULE_PROBE_FILE one URL or path a line. Only the process
// that runs dist/main.js writes: npm and the build also get NODE_OPTIONS.
import { appendFileSync } from 'node:fs'
import { createRequire, register } from 'node:module'

const file = process.env.MODULE_PROBE_FILE
if (file && process.argv.some((arg) => /(^|\/)dist\/main\.js$/.test(arg))) {
  register('./module-probe-hooks.mjs', import.meta.url, { data: { file } })
  process.once('exit', () => {
    appendFileSync(file, `${Object.keys(createRequire(import.meta.url).cache).join('\n')}\n(exit)\n`)
  })
}
