import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { generate } from '@graphql-codegen/cli'
import { describe, expect, it } from 'vitest'
import config from '../codegen.ts'

const root = fileURLToPath(new URL('..', import.meta.url))

describe('codegen output (schema/ and src/__generated__/)', () => {
  it('is what `npm run codegen` makes from the current Pothos schema and documents', async () => {
    const outputs: { filename: string; content: string }[] = await generate({ ...config, cwd: root, silent: true }, false)
    expect(outputs.map((o) => o.filename).sort()).toEqual([
      'schema/admin.graphql',
      'schema/agent.graphql',
      'schema/bot-api.graphql',
      'schema/schema.graphql',
      'src/__generated__/admin-operations.ts',
      'src/__generated__/agent-operations.ts',
      'src/__generated__/bot-api-operations.ts',
      'src/__generated__/chat-operations.ts',
      'src/webchat/__generated__/gql.ts',
      'src/webchat/__generated__/graphql.ts',
      'src/webchat/__generated__/index.ts',
    ])
    for (const output of outputs) {
      const committed = readFileSync(`${root}/${output.filename}`, 'utf8')
      expect(committed, `${output.filename} is stale: run npm run codegen`).toBe(output.content)
    }
  }, 60_000)
})
