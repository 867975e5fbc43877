import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
// @ts-expect-error: the example page's server is plain JavaScript (built and served as it is).
import { serveExample } from '../../examples/webchat/serve.mjs'
import { ADMIN_TOKEN, WORKSPACE_ID } from '../helpers/app.ts'
import { launchChromium, offline, recordPageFaults } from '../helpers/browser.ts'
import { type Listening, startListening } from '../helpers/listening.ts'
import { adminClient, type SdkBot, startSdkBot } from '../bots/sdk-bot.ts'

// The official Botpress web chat (@botpress/webchat, the example page with its custom events,
// examples/webchat/events.jsx) talking to a stock @botpress/sdk bot written for the chat
// integration (test/bots/chat-bot/bot.ts), which runs in its own process against a real Confab.

let browser: Browser
let example: { url: string; close(): Promise<void> }
const target: { apiUrl?: string; clientId?: string } = {}
let listening: Listening
let bot: SdkBot
let page: Page
let faults: string[]

beforeAll(async () => {
  browser = await launchChromium()
  example = await serveExample({ target, entry: 'events.jsx' })
  listening = await startListening({ corsOrigins: [new URL(example.url).origin] })
  const admin = adminClient(listening.baseUrl)
  const { bot: created } = await admin.createBot({ name: 'SDK bot behind the web chat' })
  const { value } = await admin.createBotApiKey({ botId: created.id })
  bot = await startSdkBot({ BP_API_URL: listening.baseUrl, BP_TOKEN: value }, 'test/bots/chat-bot/bot.ts')
  const put = await fetch(`${listening.baseUrl}/v1/admin/bots/${created.id}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'x-workspace-id': WORKSPACE_ID, 'content-type': 'application/json' },
    body: JSON.stringify({ url: bot.url, protocol: 'botpress' }),
  })
  expect(put.status).toBe(200)
  Object.assign(target, { apiUrl: listening.baseUrl, clientId: (await put.json()).bot.integrations.chat.webhookId })
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

const customEvents = async () => (await page.locator('#custom-events li').allTextContents()).map((text) => JSON.parse(text) as Record<string, unknown>)

describe('the official @botpress/webchat with a Botpress SDK bot on Confab', () => {
  it("shows the bot's bloc as one column of its items: a text, an image and Markdown", async () => {
    await page.fill('textarea.bpComposerInput', 'bloc')
    await page.press('textarea.bpComposerInput', 'Enter')
    const bloc = page.locator('.bpMessageContainer[data-direction="incoming"] .bpMessageBlocksColumn')
    await expect.poll(() => bloc.count(), { timeout: 15_000 }).toBe(1)
    await expect.poll(() => bloc.locator('.bpMessageBlocksTextText').allTextContents()).toEqual(['Hello, world!', 'bold'])
    // The image is there (shown broken: the page is offline), and the Markdown rendered.
    expect(await bloc.locator('.bpMessageBlocksImageImage').count()).toBe(1)
    expect(await bloc.locator('strong').allTextContents()).toEqual(['bold'])
  })

  it('gets the custom events the bot answers with chat:sendEvent: its start and one the page sends', async () => {
    // The web chat says conversation_started as it starts; the bot has sent it back.
    await expect.poll(customEvents, { timeout: 15_000 }).toContainEqual({ type: 'conversation_started', data: {} })
    await page.click('#custom-events button')
    await expect.poll(customEvents, { timeout: 15_000 }).toContainEqual({ type: 'custom', data: { ping: 'from the page' } })
    expect(faults).toEqual([])
  })
})
