import { Writable } from 'node:stream'
import { pino } from 'pino'

/** A pino logger at `level` whose lines are kept, parsed, and as written. */
export function capturedLog(level: string) {
  const raw: string[] = []
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      raw.push(
        ...chunk
          .toString('utf8')
          .split('\n')
          .filter((line) => line !== ''),
      )
      done()
    },
  })
  return { log: pino({ level }, stream), raw, lines: () => raw.map((line) => JSON.parse(line) as Record<string, any>) }
}
