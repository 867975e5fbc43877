import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT } from './server.ts'

/**
 * Every variable docs/reference/configuration.md documents: the backquoted names in the first column of its
 * tables (`CONFAB_WORKSPACE_ID`, `CONFAB_ADMIN_TOKEN`, … rows name several).
 */
export function documentedVariables(): string[] {
  const text = readFileSync(join(ROOT, 'docs/reference/configuration.md'), 'utf8')
  const names = new Set<string>()
  for (const line of text.split('\n')) {
    const firstCell = /^\|([^|]*)\|/.exec(line)?.[1]
    for (const [, name] of firstCell?.matchAll(/`([A-Z][A-Z0-9_]*)`/g) ?? []) names.add(name as string)
  }
  return [...names]
}
