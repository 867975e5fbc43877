import { defineConfig, mergeConfig } from 'vitest/config'
import suite from './vitest.config.ts'

/**
 * `npm run test:quick`, for the edit loop: the suite without the files that start processes (`npm start`, a
 * browser, a child server), wait on purpose (idle streams, heartbeats) or run long (fuzz, resilience,
 * performance). `npm test` still runs everything before a commit.
 */
export const SLOW = [
  'test/browser/**',
  'test/examples/**',
  'test/fuzz/**',
  'test/performance/**',
  'test/resilience/**',
  'test/server/**',
  'test/bots/crash.test.ts',
  'test/live/dropped-streams.test.ts',
  'test/live/heartbeats.test.ts',
  'test/storage/group-commit.test.ts',
]

export default mergeConfig(suite, defineConfig({ test: { exclude: SLOW } }))
