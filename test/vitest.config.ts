import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

export default defineConfig({
  root: fileURLToPath(new URL('..', import.meta.url)),
  resolve: {
    // graphql 16 ships ESM (.mjs) and CJS builds without an exports map: Vite would pick the ESM
    // one for our sources while Node hands the CJS one to Pothos and Yoga, and graphql refuses to
    // mix the two. Node's own choice (CJS) is the one the server runs with, so tests use it too.
    alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }],
  },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
})
