// The example page of the official web chat against Confab: built with esbuild from main.jsx (or
// events.jsx, the same window with the bot's custom events beside it) when it starts (nothing built
// is committed) and served on its own origin, as a site embedding the chat would be.
// `npm run example:webchat` runs it; Confab must list this origin in CORS_ORIGINS.
import { createServer } from 'node:http'
import { fileURLToPath } from 'node:url'
import * as esbuild from 'esbuild'

/** The page's script and stylesheet, bundled and minified from `entry` (a file of this folder). */
export async function buildExample(entry = 'main.jsx') {
  const result = await esbuild.build({
    entryPoints: [fileURLToPath(new URL(`./${entry}`, import.meta.url))],
    bundle: true,
    minify: true,
    write: false,
    outdir: 'out',
    format: 'esm',
    jsx: 'automatic',
    target: 'es2022',
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'silent',
  })
  const file = (ext) => result.outputFiles.find((f) => f.path.endsWith(ext))?.text ?? ''
  return { js: file('.js'), css: file('.css') }
}

const page = ({ apiUrl, clientId }) => `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>Confab: the official Botpress web chat</title>
    <link rel="stylesheet" href="/main.css" />
    <style>.confab-error { font: 1rem system-ui, sans-serif; color: #9f1239; background: #fff1f2; border: 1px solid #fecdd3; border-radius: .5rem; padding: 1rem; max-width: 40rem; }</style>
    <script>window.CONFAB = ${JSON.stringify({ apiUrl, clientId }).replace(/</g, '\\u003c')}</script>
  </head>
  <body>
    <div id="root"></div>
    <script type="module" src="/main.js"></script>
  </body>
</html>
`

/**
 * Serves the page of `entry` on `port` (0: any free one) of `host`; resolves with its URL and a
 * close(). `target` ({apiUrl, clientId}) is read at each request of the page, so it may be filled in later.
 */
export async function serveExample({ target, entry, port = 0, host = '127.0.0.1' }) {
  const { js, css } = await buildExample(entry)
  const files = {
    '/': ['text/html; charset=utf-8', () => page(target)],
    '/main.js': ['text/javascript; charset=utf-8', () => js],
    '/main.css': ['text/css; charset=utf-8', () => css],
  }
  const server = createServer((request, response) => {
    const file = files[new URL(request.url ?? '/', 'http://x').pathname]
    if (!file) return response.writeHead(404).end()
    response.writeHead(200, { 'content-type': file[0], 'cache-control': 'no-store' }).end(file[1]())
  })
  await new Promise((resolve) => server.listen(port, host, resolve))
  const url = `http://${host}:${server.address().port}/`
  return {
    url,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const apiUrl = process.env.CONFAB_URL ?? 'http://127.0.0.1:3000'
  const clientId = process.env.WEBHOOK_ID
  if (!clientId) {
    console.error('Set WEBHOOK_ID to the webhook id Confab printed (and CONFAB_URL to its address, if not http://127.0.0.1:3000).')
    process.exit(1)
  }
  // A port of its own (not PORT, which Confab reads): both run side by side from one shell.
  const port = Number(process.env.WEBCHAT_PORT ?? 8080)
  const { url } = await serveExample({ target: { apiUrl, clientId }, entry: process.env.ENTRY, port })
  console.log(`The official web chat against ${apiUrl}/${clientId}: ${url}`)
  console.log(`Confab must have been started with CORS_ORIGINS=${url.slice(0, -1)} so that the page may call it.`)
}
