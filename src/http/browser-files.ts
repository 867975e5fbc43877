import { readFile } from 'node:fs/promises'
import type { BuildOptions } from 'esbuild'

/*
 * What Confab serves to a browser of its own (the web chat, the agent console): a page of markup and
 * styles under a Content-Security-Policy that lets in nothing but its own script, and that script,
 * bundled at build time.
 */

/** A page, under its Content-Security-Policy; it tells no other site where it was. */
export const pageResponse = (html: string, contentSecurityPolicy: string): Response =>
  new Response(html, {
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': contentSecurityPolicy,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
    },
  })

/**
 * A page's script: the file `npm run build` bundled at `built`, or, when running from the sources
 * (tests, development), the same bundle made in memory by esbuild on first request.
 */
export function bundledScript(built: URL, bundle: BuildOptions): () => Promise<Response> {
  let text: Promise<string> | undefined
  return async () => {
    text ??= readFile(built, 'utf8').catch(async () => {
      const { build } = await import('esbuild')
      const result = await build({ ...bundle, write: false })
      return result.outputFiles[0]?.text ?? ''
    })
    return new Response(await text, {
      headers: { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' },
    })
  }
}
