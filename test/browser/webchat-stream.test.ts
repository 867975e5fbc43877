import { Client } from '@botpress/client'
import type { Browser, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { WEBHOOK_ID } from '../helpers/app.ts'
import { launchChromium, recordPageFaults } from '../helpers/browser.ts'
import { type Listening, startListening } from '../helpers/listening.ts'
import { adminClient } from '../bots/sdk-bot.ts'

// Confab's web chat in Chromium while the bot streams its answer (chat:publishMessageStream through
// @botpress/client): a growing bubble shows the text as the deltas come, the final message takes
// its place; an aborted stream's bubble goes.

let browser: Browser
let listening: Listening
let page: Page
let faults: string[]
let bot: Client
let botId: string

beforeAll(async () => {
  browser = await launchChromium()
}, 60_000)

afterAll(async () => {
  await browser?.close()
})

beforeEach(async () => {
  listening = await startListening()
  botId = listening.botId
  const { value: token } = await adminClient(listening.baseUrl).createBotApiKey({ botId, note: 'web chat stream' })
  bot = new Client({ apiUrl: listening.baseUrl, token, botId, retry: { retries: 0 } })
  page = await browser.newPage()
  faults = await recordPageFaults(page)
  await page.goto(`${listening.apiUrl}/`)
  await expect.poll(() => page.locator('#status').textContent(), { timeout: 15_000 }).toBe('Connected')
}, 60_000)

afterEach(async () => {
  await page?.close()
  await listening?.close()
})

const conversationOfPage = () => page.evaluate((webhookId) => localStorage.getItem(`confab:${webhookId}:conversation`) as string, WEBHOOK_ID)

const streaming = () => page.locator('.message.streaming .bubble')

describe('web chat: a message stream', () => {
  it('grows a bubble delta by delta, then the final message replaces it in place', async () => {
    const conversationId = await conversationOfPage()
    const delta = (sequence: number, text: string) =>
      bot.callAction({
        type: 'chat:publishMessageStream',
        input: { conversationId, signal: { type: 'delta', streamId: 'st-1', createdAt: new Date().toISOString(), sequence, delta: text } },
      })
    await delta(0, 'Once')
    await expect.poll(() => streaming().allTextContents()).toEqual(['Once'])
    expect(await page.locator('.message.streaming .author').textContent()).toBe('Bot')
    await delta(1, ' upon a')
    await expect.poll(() => streaming().allTextContents()).toEqual(['Once upon a'])
    await delta(2, ' time')
    await expect.poll(() => streaming().allTextContents()).toEqual(['Once upon a time'])
    const { message } = await bot.createMessage({
      conversationId,
      userId: botId,
      tags: {},
      type: 'markdown',
      payload: { markdown: 'Once upon a **time**', metadata: { streamId: 'st-1' } },
    })
    await expect.poll(() => page.locator(`[data-message-id="${message.id}"] .bubble strong`).textContent()).toBe('time')
    expect(await page.locator('.message.streaming').count()).toBe(0)
    expect(await page.locator('#messages > li').count()).toBe(1)
    expect(await page.locator('.message.bot .bubble').allTextContents()).toEqual(['Once upon a time'])
    expect(faults).toEqual([])
  })

  it('an aborted stream’s bubble goes', async () => {
    const conversationId = await conversationOfPage()
    await bot.callAction({
      type: 'chat:publishMessageStream',
      input: { conversationId, signal: { type: 'delta', streamId: 'st-2', createdAt: new Date().toISOString(), sequence: 0, delta: 'Hmm' } },
    })
    await expect.poll(() => streaming().allTextContents()).toEqual(['Hmm'])
    await bot.callAction({ type: 'chat:publishMessageStream', input: { conversationId, signal: { type: 'abort', streamId: 'st-2' } } })
    await expect.poll(() => page.locator('.message.streaming').count()).toBe(0)
    expect(await page.locator('#messages > li').count()).toBe(0)
    expect(await page.locator('#empty').isVisible()).toBe(true)
    expect(faults).toEqual([])
  })
})
