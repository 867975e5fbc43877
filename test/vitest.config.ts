import { fileURLToPath } from 'node:url'
import { BaseSequencer, type TestSpecification } from 'vitest/node'
import { configDefaults, defineConfig } from 'vitest/config'

/** Files that mostly wait (on a 70 s idle stream, on `npm start` building, on npm installing): started first, they overlap the rest. */
const WAITING = [/\/test\/live\/heartbeats\.test\.ts$/, /\/test\/server\//, /\/test\/examples\//, /\/test\/deploy\/container-contract\.test\.ts$/]

/**
 * `*.pg.test.ts` files always need PostgreSQL (and most of them Redis, or initdb and redis-server): `npm test`
 * (SQLite) leaves them out; `npm run test:postgres` (TEST_DATABASE_URL=postgres://…) runs them with the rest.
 */
const onPostgres = /^postgres(ql)?:\/\//i.test(process.env.TEST_DATABASE_URL ?? '')

class WaitingFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]) {
    const sorted = await super.sort(files)
    const waiting = (spec: TestSpecification) => WAITING.some((pattern) => pattern.test(spec.moduleId))
    return [...sorted.filter(waiting), ...sorted.filter((spec) => !waiting(spec))]
  }
}

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
    exclude: [...configDefaults.exclude, ...(onPostgres ? [] : ['test/**/*.pg.test.ts'])],
    // TEST_DATABASE_URL=postgres://…: every test app on PostgreSQL; the run fails if it does not answer.
    globalSetup: ['test/helpers/global-setup.ts'],
    // Every REST response the suite receives is checked against the OpenAPI document (helpers/openapi.ts).
    setupFiles: ['test/helpers/conformance-setup.ts'],
    // Every test makes its own app on its own in-memory database: the files share nothing but the
    // modules, which each worker then loads once instead of once per file.
    isolate: false,
    // Two workers even on two cores: the files that wait (see WAITING) leave their core idle.
    maxWorkers: 2,
    sequence: { sequencer: WaitingFirst },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // expect.poll waits for a condition; vitest's 1 s default is timing luck on a busy 2-core machine
    // (a live message to the browser missed it once). Other waits use eventually() (helpers/wait.ts), 10 s too.
    expect: { poll: { timeout: 10_000 } },
  },
})
