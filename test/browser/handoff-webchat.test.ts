import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
// @ts-expect-error: the example page's server is plain JavaScript (built and served as it is).
import { serveExample } from '../../examples/webchat/serve.mjs'
import { adminFetch } from '../helpers/admin-fetch.ts'
import { launchChromium, offline, recordPageFaults } from '../helpers/browser.ts'
import { type Listening, startListening } from '../helpers/listening.ts'
import { botWithApiKey, type SdkBot, startSdkBot } from '../bots/sdk-bot.ts'
import { agentGraphql, type PathSetup } from '../handoff/path.ts'

// The handoff as the user's web chat shows it, the official Botpress one (@botpress/webchat, the
// example page) and Confab's own (/{webhookId}/): a visitor asks the stock @botpress/sdk bot
// (test/handoff/hitl-bot/bot.ts) for a person, an agent claims the conversation on the agent GraphQL
// API and answers, and gives it back to the bot.

let browser: Browser
let example: { url: string; close(): Promise<void> }
const target: { apiUrl?: string; clientId?: string } = {}
let listening: Listening
let bot: SdkBot
let page: Page
let faults: string[]
let setup: Pick<PathSetup, 'agentBaseUrl' | 'agent' | 'botId'>
let webhookId: string

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
  webhookId = put.body.bot.integrations.chat.webhookId
  Object.assign(target, { apiUrl: listening.baseUrl, clientId: webhookId })
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
const vars = '($botId: String!, $id: String!)'

/** The agent claims the one conversation waiting in its queue: what names it in the agent API. */
async function claimTheWaitingOne(graphql: ReturnType<typeof agentGraphql>) {
  await expect.poll(async () => ((await graphql('{ queue { id } }')).queue as { id: string }[]).length, long).toBe(1)
  const { queue } = (await graphql('{ queue { id } }')) as { queue: { id: string }[] }
  const address = { botId: setup.botId, id: queue[0]?.id }
  await graphql(`mutation ${vars} { claim(input: { botId: $botId, id: $id }) { conversation { id } } }`, address)
  return address
}

const reply = (graphql: ReturnType<typeof agentGraphql>, address: Record<string, unknown>, text: string) =>
  graphql(
    'mutation ($botId: String!, $id: String!, $payload: JSONObject!) { reply(input: { botId: $botId, id: $id, payload: $payload }) { message { id } } }',
    { ...address, payload: { type: 'text', text } },
  )

const release = (graphql: ReturnType<typeof agentGraphql>, address: Record<string, unknown>) =>
  graphql(`mutation ${vars} { release(input: { botId: $botId, id: $id }) { conversation { handledBy } } }`, address)

const joined = 'Ada joined: you are talking to a person.'
const left = 'Ada left: the bot is back.'

describe('the official @botpress/webchat: a person takes over from the bot and gives it back', () => {
  it('shows the agent’s reply with the agent’s initial, keeps the visitor’s messages from the bot meanwhile, and the bot answers again', async () => {
    const graphql = agentGraphql(setup)
    await send('human')
    await expect.poll(() => texts('incoming'), long).toEqual(['Let me find you a person.'])
    const address = await claimTheWaitingOne(graphql)
    // It shows no one joining (participant_added only updates its list of participants): the bot says who did.
    await expect.poll(() => texts('incoming'), long).toEqual(['Let me find you a person.', joined])
    await reply(graphql, address, 'Ada here.')
    await expect.poll(() => texts('incoming'), long).toEqual(['Let me find you a person.', joined, 'Ada here.'])
    // Its sender: the author, found in the conversation's participants (listParticipants, then
    // participant_added), shown by the first letter of its name (its picture when it has one); the
    // web chat shows no sender's name. The bot is a participant too ("Handoff bot behind the web chat").
    const initialOf = (text: string) =>
      page.locator('.bpMessageContainer[data-direction="incoming"]', { hasText: text }).locator('.bpMessageAvatarFallback').textContent()
    await expect.poll(async () => (await initialOf('Ada here.'))?.trim(), long).toBe('A')
    await expect.poll(async () => (await initialOf('Let me find you a person.'))?.trim(), long).toBe('H')

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

    await release(graphql, address)
    await expect.poll(() => texts('incoming'), long).toEqual(['Let me find you a person.', joined, 'Ada here.', left])
    await send('thanks')
    await expect.poll(() => texts('incoming'), long).toEqual(['Let me find you a person.', joined, 'Ada here.', left, 'bot: thanks'])
    expect(await texts('outgoing')).toEqual(['human', 'my order is late', 'thanks'])
    expect(faults).toEqual([])
  }, 90_000)
})

describe("Confab's own web chat: a person takes over from the bot and gives it back", () => {
  it('says who joined, by name, shows the agent’s name above its reply, and says when it left; a reload shows who is in it now', async () => {
    const graphql = agentGraphql(setup)
    const chat = await (await browser.newContext()).newPage()
    const chatFaults = await recordPageFaults(chat)
    await chat.goto(`${listening.baseUrl}/${webhookId}/`)
    await expect.poll(() => chat.locator('#status').textContent(), long).toBe('Connected')
    const say = async (text: string) => {
      await chat.fill('#text', text)
      await chat.press('#text', 'Enter')
    }
    const others = () =>
      chat
        .locator('.message:not(.mine)')
        .evaluateAll((rows) => rows.map((row) => [row.querySelector('.author')?.textContent, row.querySelector('.bubble')?.textContent]))
    const notices = () => chat.locator('.notice > span').allTextContents()
    const lines = () => chat.locator('#messages > li').evaluateAll((rows) => rows.map((row) => row.querySelector('.notice > span, .bubble')?.textContent))
    /** Reloads the page and waits until it has read the conversation again (it says Connected once read). */
    const reload = async () => {
      await chat.reload()
      await expect.poll(() => chat.locator('#status').textContent(), long).toBe('Connected')
    }
    const bot = 'Handoff bot behind the web chat'

    await say('human')
    await expect.poll(others, long).toEqual([[bot, 'Let me find you a person.']])
    const address = await claimTheWaitingOne(graphql)
    await expect.poll(notices, long).toEqual(['Ada joined'])
    // The bot says it too, on hitlAssigned: its delivery races the agent's reply unless awaited.
    await expect.poll(others, long).toEqual([
      [bot, 'Let me find you a person.'],
      [bot, joined],
    ])
    await reply(graphql, address, 'Ada here, in your chat.')
    await expect.poll(others, long).toEqual([
      [bot, 'Let me find you a person.'],
      [bot, joined],
      ['Ada', 'Ada here, in your chat.'],
    ])
    expect(await chat.locator('.message.other .avatar').allTextContents()).toEqual(['A'])

    // Notices are not stored: a reload shows Ada joining again, once, at the time she joined.
    await reload()
    expect(await notices()).toEqual(['Ada joined'])
    expect(await lines()).toEqual(['human', 'Let me find you a person.', 'Ada joined', joined, 'Ada here, in your chat.'])

    await release(graphql, address)
    await expect.poll(notices, long).toEqual(['Ada joined', 'Ada left'])
    await expect.poll(async () => (await others()).at(-1), long).toEqual([bot, left])
    // In the conversation's order: the join before the agent's reply, the leave after it.
    const order = await lines()
    expect(order.indexOf('Ada joined')).toBeLessThan(order.indexOf('Ada here, in your chat.'))
    expect(order.indexOf('Ada left')).toBeGreaterThan(order.indexOf('Ada here, in your chat.'))

    // Ada is no longer a participant: a reload does not show her joining, and her reply keeps her name.
    await reload()
    expect(await notices()).toEqual([])
    expect(await others()).toEqual([
      [bot, 'Let me find you a person.'],
      [bot, joined],
      ['Ada', 'Ada here, in your chat.'],
      [bot, left],
    ])
    expect(chatFaults).toEqual([])
  }, 90_000)
})
