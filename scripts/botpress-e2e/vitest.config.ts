// Runs Botpress' own chat-client e2e tests (a copy of packages/chat-client at a pinned commit, made by
// scripts/botpress-e2e.sh) with their own client source, against a Confab at API_URL. Botpress' build
// generates the client's `src/gen` with @bpinternal/opapi, which is not installed here: the script
// puts the files of ./gen there instead, made from the same @botpress/chat-api definitions at run time.
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url))
const chatClient = process.env.BOTPRESS_CHAT_CLIENT
if (!chatClient) throw new Error('BOTPRESS_CHAT_CLIENT: the copy of packages/chat-client to test (scripts/botpress-e2e.sh sets it)')

export default defineConfig({
  root: chatClient,
  resolve: {
    alias: [
      // Botpress' packages are written for zod 3; Confab has zod 4, which carries zod 3 as `zod/v3`.
      { find: /^zod$/, replacement: createRequire(import.meta.url).resolve('zod/v3') },
      { find: /^@bpinternal\/opapi$/, replacement: here('./opapi.ts') },
      { find: /^lodash$/, replacement: here('./lodash.ts') },
    ],
  },
  test: {
    // Botpress' own settings (packages/chat-client/vitest.config.ts).
    testTimeout: 20_000,
    include: ['./e2e/message.test.ts', './e2e/participant.test.ts'],
  },
})
