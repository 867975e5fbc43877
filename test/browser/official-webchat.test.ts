import type { Browser, BrowserContext, Page } from 'playwright-core'
import { pino } from 'pino'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
// @ts-expect-error: the example page's server is plain JavaScript (built and served as it is).
import { serveExample } from '../../examples/webchat/serve.mjs'
import { WEBHOOK_ID } from '../helpers/app.ts'
import { launchChromium, offline, recordPageFaults } from '../helpers/browser.ts'
import { type Listening, startListening } from '../helpers/listening.ts'

// The official Botpress web chat (@botpress/webchat, React), built from the example page and served
// from an origin of its own, talking to a real Confab across origins (CORS_ORIGINS lists it).

const PNG_1X1 = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64')

let browser: Browser
let example: { url: string; close(): Promise<void> }
const target: { apiUrl?: string; clientId?: string } = {}
let listening: Listening
let context: BrowserContext
let page: Page
let faults: string[]

beforeAll(async () => {
  browser = await launchChromium()
  example = await serveExample({ target })
}, 60_000)

afterAll(async () => {
  await example?.close()
  await browser?.close()
})

beforeEach(async () => {
  listening = await startListening({ corsOrigins: [new URL(example.url).origin] })
  Object.assign(target, { apiUrl: listening.baseUrl, clientId: WEBHOOK_ID })
  context = await browser.newContext()
  page = await open()
}, 60_000)

afterEach(async () => {
  await context?.close()
  await listening?.close()
})

/** A tab of the example page, once the web chat is connected (its composer is enabled). */
async function open(): Promise<Page> {
  const tab = await context.newPage()
  await offline(tab)
  faults = await recordPageFaults(tab)
  await tab.goto(example.url)
  await expect.poll(() => tab.locator('.bpComposerContainer[data-disabled="false"]').count(), { timeout: 20_000 }).toBe(1)
  return tab
}

const texts = (tab: Page, direction: 'incoming' | 'outgoing') =>
  tab.locator(`.bpMessageContainer[data-direction="${direction}"] .bpMessageBlocksTextText`).allTextContents()

async function send(tab: Page, text: string) {
  await tab.fill('textarea.bpComposerInput', text)
  await tab.press('textarea.bpComposerInput', 'Enter')
}

/** The user and conversation the web chat keeps (what `init` gave it). */
const session = () =>
  page.evaluate(() => {
    for (let i = 0; i < localStorage.length; i++) {
      const value = localStorage.getItem(localStorage.key(i) as string) ?? ''
      if (value.includes('userToken')) return JSON.parse(value).state as { user: { userId: string; userToken: string }; conversationId: string }
    }
    return undefined
  })

describe('the official @botpress/webchat against Confab', () => {
  it("sends a visitor's text and shows the echo bot's reply once, not twice", async () => {
    await send(page, 'Hello, official web chat')
    await expect.poll(() => texts(page, 'incoming'), { timeout: 15_000 }).toEqual(['Hello, official web chat'])
    expect(await texts(page, 'outgoing')).toEqual(['Hello, official web chat'])
    // The user's own message came back over the stream with its clientMessageId: no pending copy is left.
    await expect.poll(() => page.locator('.bpMessageBlocksBubble[status="pending"]').count()).toBe(0)
    expect(faults).toEqual([])
  })

  it('keeps the conversation and its history across a reload', async () => {
    await send(page, 'remember me')
    await expect.poll(() => texts(page, 'incoming'), { timeout: 15_000 }).toEqual(['remember me'])
    const before = await session()
    expect(before?.conversationId).toEqual(expect.any(String))
    await page.reload()
    await expect.poll(() => page.locator('.bpComposerContainer[data-disabled="false"]').count(), { timeout: 20_000 }).toBe(1)
    await expect.poll(() => texts(page, 'outgoing')).toEqual(['remember me'])
    expect(await texts(page, 'incoming')).toEqual(['remember me'])
    expect(await session()).toEqual(before)
  })

  it('shows a second tab of the same user the new messages live', async () => {
    const second = await open()
    await send(page, 'seen in both tabs')
    await expect.poll(() => texts(second, 'incoming'), { timeout: 15_000 }).toEqual(['seen in both tabs'])
    await expect.poll(() => texts(second, 'outgoing')).toEqual(['seen in both tabs'])
  })

  it('stores feedback given on a bot message, which a reload shows', async () => {
    await send(page, 'rate this')
    await expect.poll(() => texts(page, 'incoming'), { timeout: 15_000 }).toEqual(['rate this'])
    await page.locator('.bpMessageBlocksBubbleFeedbackIcon').first().click()
    const { user, conversationId } = (await session()) as NonNullable<Awaited<ReturnType<typeof session>>>
    const stored = async () => {
      const res = await listening.t.chat('GET', `/conversations/${conversationId}/messages`, { key: user.userToken })
      return res.body.messages.find((m: { userId: string }) => m.userId !== user.userId)?.feedback
    }
    await expect.poll(stored, { timeout: 10_000 }).toEqual({ value: 'positive' })
    await page.reload()
    await expect.poll(() => page.locator('.bpMessageBlocksBubble[data-feedback="true"]').count(), { timeout: 20_000 }).toBe(1)
  })

  it("lists the visitor's conversation in the history panel with its last message (listConversations' lastMessage)", async () => {
    await send(page, 'find me in the history')
    await expect.poll(() => texts(page, 'incoming'), { timeout: 15_000 }).toEqual(['find me in the history'])
    await page.locator('.bpHeaderConversationHistoryButton').click()
    const listed = page.locator('.bpConversationHistoryConversationContainer')
    await expect.poll(() => listed.count(), { timeout: 15_000 }).toBe(1)
    expect(await listed.first().innerText()).toContain('find me in the history')
    expect(await page.locator('.bpConversationHistoryContainer').innerText()).not.toContain('No conversation started yet')
    expect(faults).toEqual([])
  })

  it('uploads an image under 1 MB, which shows in the conversation', async () => {
    await page.locator('input[type="file"]').setInputFiles({ name: 'dot.png', mimeType: 'image/png', buffer: PNG_1X1 })
    await expect
      .poll(() => page.locator('.bpComposerContainer [data-status="uploaded"], .bpComposerContainer img').count(), { timeout: 15_000 })
      .toBeGreaterThan(0)
    await page.press('textarea.bpComposerInput', 'Enter')
    const images = page.locator('.bpMessageListContainer img[src*="/files/"]')
    await expect.poll(() => images.count(), { timeout: 15_000 }).toBe(2)
    const loaded = await images.evaluateAll((imgs) => imgs.map((img) => (img as HTMLImageElement).naturalWidth))
    expect(loaded).toEqual([1, 1])
  })

  it('shows an error for an image over 1 MB', async () => {
    await page.locator('input[type="file"]').setInputFiles({ name: 'big.png', mimeType: 'image/png', buffer: Buffer.alloc(1_048_577) })
    await expect.poll(() => page.locator('body').innerText(), { timeout: 15_000 }).toMatch(/1 MB/)
  })
})

describe('the example page when Confab refuses its origin (CORS_ORIGINS does not list it)', () => {
  it('shows what is wrong and the fix on the page, not a spinner; Confab logs the refused origin at info', async () => {
    const logged: Record<string, unknown>[] = []
    const refusing = await startListening({ log: pino({ level: 'info' }, { write: (line: string) => void logged.push(JSON.parse(line)) }) })
    try {
      Object.assign(target, { apiUrl: refusing.baseUrl, clientId: WEBHOOK_ID })
      const tab = await context.newPage()
      await tab.goto(example.url)
      const origin = new URL(example.url).origin
      await expect
        .poll(() => tab.getByRole('alert').textContent(), { timeout: 20_000 })
        .toBe(`Confab at ${refusing.baseUrl} refuses this page's origin (CORS). Start it with CORS_ORIGINS=${origin} (a comma-separated list).`)
      expect(await tab.getByRole('alert').isVisible()).toBe(true)
      expect(logged.filter((line) => String(line.msg).startsWith('CORS: refused'))).toEqual([
        expect.objectContaining({ level: 30, origin, path: `/${WEBHOOK_ID}/hello` }),
      ])
    } finally {
      await refusing.close()
    }
  })

  it('says so when the webhook id is unknown', async () => {
    Object.assign(target, { apiUrl: listening.baseUrl, clientId: 'no-such-webhook' })
    const tab = await context.newPage()
    await tab.goto(example.url)
    await expect
      .poll(() => tab.getByRole('alert').textContent(), { timeout: 20_000 })
      .toBe(`Confab at ${listening.baseUrl} has no chat integration with the webhook id "no-such-webhook".`)
  })
})
