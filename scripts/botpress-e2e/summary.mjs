// Per test file, passed/failed for each protocol, from vitest's JSON report. Botpress' tests are
// `test.each(['sse', 'websocket'])` with names that do not say the protocol: vitest runs them in that
// order, so the first of two same-named tests is SSE's and the second WebSocket's.
import { readFileSync } from 'node:fs'
import { basename } from 'node:path'

// Botpress' testTimeout (botpress-e2e/vitest.config.ts); vitest's JSON report loses a timeout's words.
const testTimeoutMs = 20_000
const reason = (t) => (t.duration >= testTimeoutMs ? `timed out after ${testTimeoutMs / 1000} s` : (t.failureMessages ?? []).join(' ').split('\n')[0])

const report = JSON.parse(readFileSync(process.argv[2], 'utf8'))
for (const file of report.testResults) {
  const counts = { sse: { passed: 0, failed: 0 }, websocket: { passed: 0, failed: 0 }, either: { passed: 0, failed: 0 } }
  const failures = []
  const named = new Map()
  const seen = new Map()
  for (const t of file.assertionResults) named.set(t.title, (named.get(t.title) ?? 0) + 1)
  for (const t of file.assertionResults) {
    const index = seen.get(t.title) ?? 0
    seen.set(t.title, index + 1)
    if (t.status !== 'passed' && t.status !== 'failed') continue
    const protocol = named.get(t.title) === 2 ? (index === 0 ? 'sse' : 'websocket') : 'either'
    counts[protocol][t.status]++
    if (t.status === 'failed') failures.push(`  ✗ [${protocol}] ${t.title}: ${reason(t)}`)
  }
  const line = (p) => `${p} ${counts[p].passed} passed, ${counts[p].failed} failed`
  console.log(`${basename(file.name)}: ${line('sse')}; ${line('websocket')}; ${line('either')} (not parameterised)`)
  for (const f of failures) console.log(f)
  if (file.assertionResults.length === 0) console.log(`  ✗ the file did not run: ${file.message.split('\n')[0]}`)
}
