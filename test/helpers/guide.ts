import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'vitest'
import { ROOT } from './server.ts'

// What a test that runs a guide as written needs: each command looked up in its page first, then run
// in a shell from the repository root.

/** `text`, once the page at `guide` (from the repository root) is known to show it as written. */
export const documentedIn =
  (guide: string) =>
  (text: string): string => {
    expect(readFileSync(join(ROOT, guide), 'utf8'), `${guide} no longer shows:\n${text}`).toContain(text)
    return text
  }

/** A shell script run to its end from the repository root, with `env` added: its exit code and its output (stdout and stderr). */
export function sh(script: string, env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const child = spawn('sh', ['-c', script], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, output })))
}

/** The value printed after `label` in a server's first start. */
export const printed = (stdout: string, label: string) => new RegExp(`${label}\\s+(\\S+)`).exec(stdout)?.[1] as string
