import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT } from './server.ts'

/** One instruction of a Dockerfile: its keyword (upper case), its arguments as written, and its stage (0 first). */
export interface Instruction {
  keyword: string
  args: string
  stage: number
}

/** The instructions of a Dockerfile: comments dropped, `\` continuations joined (by one space). */
export function parseDockerfile(text: string): Instruction[] {
  const instructions: Instruction[] = []
  let stage = -1
  let pending = ''
  for (const line of text.split('\n')) {
    if (/^\s*#/.test(line)) continue
    const continued = /\\\s*$/.test(line)
    pending += `${line.replace(/\\\s*$/, '')} `
    if (continued) continue
    const statement = pending.trim()
    pending = ''
    if (statement === '') continue
    const [, keyword = '', args = ''] = /^(\S+)\s*(.*)$/.exec(statement) ?? []
    if (keyword.toUpperCase() === 'FROM') stage += 1
    instructions.push({ keyword: keyword.toUpperCase(), args: args.trim(), stage })
  }
  return instructions
}

/** `KEY=value KEY2=value2` (ENV, ARG) as a record; values without quotes or with double quotes. */
export function keyValues(args: string): Record<string, string> {
  const pairs: Record<string, string> = {}
  for (const [, key, quoted, bare] of args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=(?:"([^"]*)"|(\S*))/g)) pairs[key as string] = quoted ?? bare ?? ''
  return pairs
}

/** The project's Dockerfile, parsed. */
export const dockerfile = () => parseDockerfile(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'))

/** The instructions of the image's last stage (the one `docker build` tags), and the environment it sets. */
export function runtimeStage(instructions = dockerfile()) {
  const last = Math.max(...instructions.map((instruction) => instruction.stage))
  const stage = instructions.filter((instruction) => instruction.stage === last)
  const env = Object.assign({}, ...stage.filter((i) => i.keyword === 'ENV').map((i) => keyValues(i.args))) as Record<string, string>
  return { stage, env }
}

/** The exec form (`["node", "-e", "…"]`) of CMD or HEALTHCHECK … CMD, as argv. */
export function execForm(args: string): string[] {
  const json = args.slice(args.indexOf('['))
  const argv = JSON.parse(json) as unknown
  if (!Array.isArray(argv) || !argv.every((arg) => typeof arg === 'string')) throw new Error(`not an exec form: ${args}`)
  return argv
}
