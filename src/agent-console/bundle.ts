import { fileURLToPath } from 'node:url'
import type { BuildOptions } from 'esbuild'

/** How the agent console's script is bundled: by `npm run build` into dist/agent-console/console.js, or in memory when running from src/. */
export const agentConsoleBundle: BuildOptions = {
  entryPoints: [fileURLToPath(new URL('./main.ts', import.meta.url))],
  bundle: true,
  minify: true,
  format: 'esm',
  target: 'es2022',
}
