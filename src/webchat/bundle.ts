import { fileURLToPath } from 'node:url'
import type { BuildOptions } from 'esbuild'

/** How the web chat's script is bundled: by `npm run build` into dist/webchat/webchat.js, or in memory when running from src/. */
export const webChatBundle: BuildOptions = {
  entryPoints: [fileURLToPath(new URL('./main.ts', import.meta.url))],
  bundle: true,
  minify: true,
  format: 'esm',
  target: 'es2022',
}
