import { type ChildProcess, spawn } from 'node:child_process'
import { createServer } from 'node:net'
import { fileURLToPath } from 'node:url'
import { Client as AdminClient } from '@botpress/client'
import { vi } from 'vitest'
import { ADMIN_TOKEN, WORKSPACE_ID } from '../helpers/app.ts'

const root = fileURLToPath(new URL('../..', import.meta.url))

/** A port free right now on 127.0.0.1. */
export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })

export interface SdkBot {
  url: string
  output: () => string
  stop: () => Promise<void>
}

/**
 * Starts a stock @botpress/sdk bot (test/bots/sdk-bot/bot.ts unless another is named) as a user
 * would: its own process, BP_API_URL and BP_TOKEN.
 */
export async function startSdkBot(env: { BP_API_URL: string; BP_TOKEN: string }, script = 'test/bots/sdk-bot/bot.ts'): Promise<SdkBot> {
  const port = await freePort()
  const child: ChildProcess = spawn(`${root}node_modules/.bin/tsx`, [script], {
    cwd: root,
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout?.on('data', (chunk) => (output += chunk))
  child.stderr?.on('data', (chunk) => (output += chunk))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const url = `http://127.0.0.1:${port}`
  await vi
    .waitFor(
      async () => {
        if (!(await fetch(`${url}/health`)).ok) throw new Error('not yet')
      },
      { timeout: 30_000, interval: 50 },
    )
    .catch(() => {
      throw new Error(`the bot did not start: ${output}`)
    })
  return {
    url,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.pid !== undefined) process.kill(child.pid, 'SIGTERM')
      await exited
    },
  }
}

/** The administration client of the test workspace, as a user would make it. */
export const adminClient = (baseUrl: string) => new AdminClient({ apiUrl: baseUrl, token: ADMIN_TOKEN, workspaceId: WORKSPACE_ID })

/** A new bot of the test workspace named `name`, and a key of its own for the runtime API (its BP_TOKEN). */
export async function botWithApiKey(baseUrl: string, name: string) {
  const admin = adminClient(baseUrl)
  const { bot } = await admin.createBot({ name })
  const { value } = await admin.createBotApiKey({ botId: bot.id, note: `${name} test` })
  return { botId: bot.id, token: value }
}
