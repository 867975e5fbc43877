import { readFileSync } from 'node:fs'

/**
 * Confab's version, from package.json (`confab --version`, GET /healthz). src/ and dist/ are both one
 * level below the package's folder, and the server's bundle keeps this module's own URL (src/build.mjs),
 * so the same path finds it built or not.
 */
export const version: string = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version
