import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { documentedIn, printed, sh } from '../helpers/guide.ts'
import { type RunningServer, START_TIMEOUT, startServer } from '../helpers/server.ts'

// docs/guides/handoff.md as written: its commands run in a shell from the repository root against
// `npm start`, in the guide's order (each looked up in the page first), with the values of the first
// start in the shell. The one value a reader copies by hand, the agent key createAgent showed, is put
// where the guide says (`AGENT=agk_…`).

const guide = 'docs/guides/handoff.md'

const documented = documentedIn(guide)

/** The JSON answers a script printed, one a line (the test ends each command's output with a newline). */
const answers = (output: string) =>
  output
    .trim()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line))

const dir = mkdtempSync(join(tmpdir(), 'confab-handoff-guide-'))
let server: RunningServer
let shell: Record<string, string>

beforeAll(async () => {
  server = await startServer({ databaseUrl: join(dir, 'confab.db') })
  const stdout = server.stdout()
  shell = { CONFAB_URL: server.baseUrl, TOKEN: printed(stdout, 'admin token:'), WORKSPACE: printed(stdout, 'workspace id:') }
}, START_TIMEOUT)

afterAll(async () => {
  await server?.stop()
  rmSync(dir, { recursive: true, force: true })
}, 60_000)

describe('docs/guides/handoff.md, as written', () => {
  it('a bot hands alice to the queue; an agent made by the administrator claims, answers and releases it; alice reads the answer', {
    timeout: 90_000,
  }, async () => {
    const setup = documented(`json() { node -pe "JSON.parse(require('fs').readFileSync(0, 'utf8')).$1"; }
BOT=$(curl -s "$CONFAB_URL/v1/admin/bots" -H "Authorization: Bearer $TOKEN" -H "x-workspace-id: $WORKSPACE" \\
  -H 'content-type: application/json' -d '{"name":"Help desk bot"}')
BOT_ID=$(echo "$BOT" | json bot.id) CHAT=$(echo "$BOT" | json bot.integrations.chat.webhookUrl)
BOT_KEY=$(curl -s "$CONFAB_URL/v1/admin/bots/baks" -H "Authorization: Bearer $TOKEN" -H "x-workspace-id: $WORKSPACE" \\
  -H 'content-type: application/json' -d "{\\"botId\\":\\"$BOT_ID\\"}" | json value)
ALICE=$(curl -s "$CHAT/users" -H 'content-type: application/json' -d '{"id":"alice","name":"Alice"}' | json key)
curl -s "$CHAT/conversations" -H "x-user-key: $ALICE" -H 'content-type: application/json' -d '{"id":"c1"}'
`)
    const startHitl = documented(`curl -s "$CONFAB_URL/v1/chat/actions" -H "Authorization: Bearer $BOT_KEY" -H "x-bot-id: $BOT_ID" \\
  -H 'content-type: application/json' \\
  -d '{"type":"hitl:startHitl","input":{"userId":"alice","conversationId":"c1","title":"Wants a refund","messageHistory":[]}}'
`)
    const createAgent = documented(`curl -s "$CONFAB_URL/v1/admin/agents" -H "Authorization: Bearer $TOKEN" -H "x-workspace-id: $WORKSPACE" \\
  -H 'content-type: application/json' -d '{"name":"Ada"}'
`)
    // The first part, and what the rest needs of it (the test's own lines, after the guide's).
    const first = await sh(`${setup}echo\n${startHitl}echo\n${createAgent}echo\necho "BOT_ID=$BOT_ID BOT_KEY=$BOT_KEY CHAT=$CHAT ALICE=$ALICE"\n`, shell)
    expect(first.code, first.output).toBe(0)
    const [conversation, handedOff, agent] = answers(first.output)
    expect(conversation).toMatchObject({ conversation: { id: 'c1' } })
    expect(handedOff).toMatchObject({ output: { conversationId: 'c1' } })
    expect(agent).toMatchObject({ agent: { name: 'Ada', role: 'agent' }, key: expect.stringMatching(/^agk_/) })
    const values = Object.fromEntries(
      (/^BOT_ID=.*$/m.exec(first.output)?.[0] ?? '').split(' ').map((pair) => pair.split('=', 2) as [string, string]),
    ) as Record<string, string>
    expect(Object.keys(values)).toEqual(['BOT_ID', 'BOT_KEY', 'CHAT', 'ALICE'])

    // The same ask with @botpress/client, as the bot’s client: already handed off, it changes nothing.
    const callAction = documented(`await client.callAction({
  type: 'hitl:startHitl',
  input: { userId: 'alice', conversationId: 'c1', title: 'Wants a refund', description: 'asked for a person', messageHistory: [] },
})
// → { output: { conversationId: 'c1' } }
`)
    const program = `import { Client } from '@botpress/client'
const client = new Client({ apiUrl: process.env.CONFAB_URL, token: process.env.BOT_KEY, botId: process.env.BOT_ID })
const { output } = ${callAction}console.log(JSON.stringify({ output }))
`
    const asked = await sh(`node --input-type=module -e "$PROGRAM"`, { ...shell, ...values, PROGRAM: program })
    expect({ code: asked.code, answers: answers(asked.output) }).toEqual({ code: 0, answers: [{ output: { conversationId: 'c1' } }] })

    const agentSteps = documented(`AGENT=agk_…   # the key createAgent showed
curl -s "$CONFAB_URL/v1/agent/queue" -H "Authorization: Bearer $AGENT"
curl -s -X POST "$CONFAB_URL/v1/agent/bots/$BOT_ID/conversations/c1/claim" -H "Authorization: Bearer $AGENT"
curl -s "$CONFAB_URL/v1/agent/bots/$BOT_ID/conversations/c1/messages" -H "Authorization: Bearer $AGENT" \\
  -H 'content-type: application/json' -d '{"payload":{"type":"text","text":"Ada here, how can I help?"}}'
curl -s -X POST "$CONFAB_URL/v1/agent/bots/$BOT_ID/conversations/c1/release" -H "Authorization: Bearer $AGENT"
`)
    const userReads = documented(`curl -s "$CHAT/conversations/c1/messages" -H "x-user-key: $ALICE"
`)
    // Each command's answer on a line of its own: an echo after each command's last line.
    const endLines = (commands: string) =>
      commands
        .split('\n')
        .map((line) => (line.startsWith('curl') || line.startsWith('  -') ? (line.endsWith('\\') ? line : `${line}; echo`) : line))
        .join('\n')
    const script = endLines(`${agentSteps.replace('AGENT=agk_…', `AGENT=${agent.key}`)}${userReads}`)
    const second = await sh(script, { ...shell, ...values })
    expect(second.code, second.output).toBe(0)
    const [queue, claimed, reply, released, read] = answers(second.output)
    expect(queue).toMatchObject({ conversations: [{ botId: values.BOT_ID, id: 'c1', ownerId: 'alice', handledBy: 'waiting', title: 'Wants a refund' }] })
    expect(claimed).toMatchObject({ conversation: { id: 'c1', handledBy: 'agent', agentId: agent.agent.id } })
    expect(reply).toMatchObject({ message: { userId: `agent:${agent.agent.id}`, payload: { type: 'text', text: 'Ada here, how can I help?' } } })
    expect(released).toMatchObject({ conversation: { id: 'c1', handledBy: 'bot' } })
    expect(read.messages[0]).toMatchObject({ userId: `agent:${agent.agent.id}`, payload: { type: 'text', text: 'Ada here, how can I help?' } })
  })
})
