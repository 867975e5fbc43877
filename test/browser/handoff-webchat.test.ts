import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
// @ts-expect-error: the example page's server is plain JavaScript (built and served as it is).
import { serveExample } from '../../examples/webchat/serve.mjs'
import { adminFetch } from '../helpers/admin-fetch.ts'
import { launchChromium, offline, recordPageFaults } from '../helpers/browser.ts'
import { type Listening, startListening } from '../helpers/listening.ts'
import { botWithApiKey, type SdkBot, startSdkBot } from '../bots/sdk-bot.ts'
import { agentGraphql, type PathSetup } from '../handoff/path.ts'

// The handoff as the official Botpress web chat (@botpress/webchat, the example page) shows it: a
// visitor asks the stock @botpress/sdk bot (test/handoff/hitl-bot/bot.ts) for a person, an agent
// claims the conversation on the agent GraphQL API and answers, and gives it back to the bot.

let browser: Browser
let example: { url: string; close(): Promise<void> }
const target: { apiUrl?: string; clientId?: string } = {}
let listening: Listening
let bot: SdkBot
let page: Page
let faults: string[]
let setup: Pick<PathSetup, 'agentBaseUrl' | 'agent' | 'botId'>

beforeAll(async () => {
  browser = await launchChromium()
  example = await serveExample({ target })
  listening = await startListening({ corsOrigins: [new URL(example.url).origin] })
  const { botId, token } = await botWithApiKey(listening.baseUrl, 'Handoff bot behind the web chat')
  bot = await startSdkBot({ BP_API_URL: listening.baseUrl, BP_TOKEN: token }, 'test/handoff/hitl-bot/bot.ts')
  const put = await adminFetch(listening.baseUrl, 'PUT', `/bots/${botId}`, { url: bot.url, protocol: 'botpress' })
  expect(put.status).toBe(200)
  const agent = await adminFetch(listening.baseUrl, 'POST', '/agents', { name: 'Ada' })
  expect(agent.status).toBe(200)
  setup = { agentBaseUrl: listening.baseUrl, agent: { id: agent.body.agent.id, key: agent.body.key, name: 'Ada' }, botId }
  Object.assign(target, { apiUrl: listening.baseUrl, clientId: put.body.bot.integrations.chat.webhookId })
  page = await (await browser.newContext()).newPage()
  await offline(page)
  faults = await recordPageFaults(page)
  await page.goto(example.url)
  await vi.waitFor(async () => expect(await page.locator('.bpComposerContainer[data-disabled="false"]').count()).toBe(1), {
    timeout: 20_000,
    interval: 50,
  })
}, 90_000)

afterAll(async () => {
  await browser?.close()
  await example?.close()
  await bot?.stop()
  await listening?.close()
})

const texts = (direction: 'incoming' | 'outgoing') =>
  page.locator(`.bpMessageContainer[data-direction="${direction}"] .bpMessageBlocksTextText`).allTextContents()

async function send(text: string) {
  await page.fill('textarea.bpComposerInput', text)
  await page.press('textarea.bpComposerInput', 'Enter')
}

const long = { timeout: 20_000 }

describe('the official @botpress/webchat: a person takes over from the bot and gives it back', () => {
  it('shows the agent’s reply, keeps the visitor’s messages from the bot meanwhile, and the bot answers again', async () => {
    const graphql = agentGraphql(setup)
    await send('human')
    await expect.poll(() => texts('incoming'), long).toEqual(['Let me find you a person.'])
    await expect.poll(async () => ((await graphql('{ queue { id } }')).queue as { id: string }[]).length, long).toBe(1)
    const { queue } = (await graphql('{ queue { id } }')) as { queue: { id: string }[] }
    const address = { botId: setup.botId, id: queue[0]?.id }
    const vars = '($botId: String!, $id: String!)'
    await graphql(`mutation ${vars} { claim(input: { botId: $botId, id: $id }) { conversation { id } } }`, address)
    await graphql(`mutation ${vars} { reply(input: { botId: $botId, id: $id, payload: { type: "text", text: "Ada here." } }) { message { id } } }`, address)
    await expect.poll(() => texts('incoming'), long).toEqual(['Let me find you a person.', 'Ada here.'])

    // The visitor's message reaches the agent, not the bot.
    await send('my order is late')
    await expect
      .poll(async () => {
        const { history } = (await graphql(`query ${vars} { history(botId: $botId, id: $id) { rawPayload } }`, address)) as {
          history: { rawPayload: { text: string } }[]
        }
        return history[0]?.rawPayload.text
      }, long)
      .toBe('my order is late')

    await graphql(`mutation ${vars} { release(input: { botId: $botId, id: $id }) { conversation { handledBy } } }`, address)
    await expect.poll(() => texts('incoming'), long).toEqual(['Let me find you a person.', 'Ada here.', 'The bot is back.'])
    await send('thanks')
    await expect.poll(() => texts('incoming'), long).toEqual(['Let me find you a person.', 'Ada here.', 'The bot is back.', 'bot: thanks'])
    expect(await texts('outgoing')).toEqual(['human', 'my order is late', 'thanks'])
    expect(faults).toEqual([])
  }, 90_000)
})
