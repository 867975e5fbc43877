import type { Browser, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { WEBHOOK_ID } from '../helpers/app.ts'
import { launchChromium } from '../helpers/browser.ts'
import { type Listening, startListening } from '../helpers/listening.ts'

let browser: Browser
let listening: Listening
let t: Listening['t']
let page: Page

beforeAll(async () => {
  browser = await launchChromium()
}, 60_000)

afterAll(async () => {
  await browser?.close()
})

beforeEach(async () => {
  listening = await startListening()
  t = listening.t
  page = await browser.newPage()
  await page.goto(`${listening.apiUrl}/`)
  await expect.poll(() => page.locator('#status').textContent(), { timeout: 15_000 }).toBe('Connected')
}, 60_000)

afterEach(async () => {
  await page?.close()
  await listening?.close()
})

/** The key and conversation the page keeps in localStorage, to post into its conversation from outside. */
async function pageSession() {
  return page.evaluate((webhookId) => ({
    key: localStorage.getItem(`confab:${webhookId}:key`) as string,
    conversationId: localStorage.getItem(`confab:${webhookId}:conversation`) as string,
  }), WEBHOOK_ID)
}

async function postAsPageUser(payload: Record<string, unknown>) {
  const { key, conversationId } = await pageSession()
  const res = await t.chat('POST', '/messages', { key, body: { conversationId, payload } })
  expect(res.status).toBe(200)
  return res.body.message.id as string
}

const bubble = (messageId: string) => page.locator(`[data-message-id="${messageId}"] .bubble`)

describe('web chat at /{webhookId}/', () => {
  it('sends what the user types and shows the echo bot reply live, without reloading', async () => {
    await page.fill('#text', 'Hello from the browser')
    await page.press('#text', 'Enter')
    await expect.poll(() => page.locator('.message.mine .bubble').allTextContents()).toEqual(['Hello from the browser'])
    await expect.poll(() => page.locator('.message.bot .bubble').allTextContents(), { timeout: 10_000 }).toEqual([
      'Hello from the browser',
    ])
    expect(await page.locator('.message.bot .author').textContent()).toBe('Echo bot')
  })

  it('keeps its user and conversation across a reload', async () => {
    await page.fill('#text', 'remember me')
    await page.press('#text', 'Enter')
    await expect.poll(() => page.locator('.message').count(), { timeout: 10_000 }).toBe(2)
    const before = await pageSession()
    await page.reload()
    await expect.poll(() => page.locator('#status').textContent(), { timeout: 15_000 }).toBe('Connected')
    expect(await pageSession()).toEqual(before)
    expect(await page.locator('.message .bubble').allTextContents()).toEqual(['remember me', 'remember me'])
  })

  it('renders a payload containing <script> as text and runs nothing', async () => {
    const hostile = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">'
    await page.fill('#text', hostile)
    await page.press('#text', 'Enter')
    await expect.poll(() => page.locator('.message.bot .bubble').allTextContents(), { timeout: 10_000 }).toEqual([hostile])
    const markdownId = await postAsPageUser({ type: 'markdown', markdown: `**bold** ${hostile} [x](javascript:alert(1))` })
    await expect.poll(() => bubble(markdownId).locator('strong').textContent()).toBe('bold')
    expect(await page.locator('#messages script, #messages img[src="x"]').count()).toBe(0)
    expect(await bubble(markdownId).locator('a').count()).toBe(0)
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined()
  })

  it('renders every payload kind the way a chat widget does', async () => {
    const card = {
      type: 'card',
      title: 'A card',
      subtitle: 'with a subtitle',
      imageUrl: 'https://example.com/card.png',
      actions: [
        { action: 'postback', label: 'Pick me', value: 'picked' },
        { action: 'url', label: 'Docs', value: 'https://example.com/docs' },
      ],
    }
    const ids = {
      image: await postAsPageUser({ type: 'image', imageUrl: 'https://example.com/a.png' }),
      audio: await postAsPageUser({ type: 'audio', audioUrl: 'https://example.com/a.mp3' }),
      video: await postAsPageUser({ type: 'video', videoUrl: 'https://example.com/a.mp4' }),
      file: await postAsPageUser({ type: 'file', fileUrl: 'https://example.com/a.pdf', title: 'The PDF' }),
      location: await postAsPageUser({ type: 'location', latitude: 45.5, longitude: -73.6, address: '1 Main St' }),
      card: await postAsPageUser(card),
      carousel: await postAsPageUser({ type: 'carousel', items: [card, { ...card, title: 'Second' }] }),
      choice: await postAsPageUser({ type: 'choice', text: 'Pick one', options: [{ label: 'Yes', value: 'yes' }] }),
      dropdown: await postAsPageUser({ type: 'dropdown', text: 'Choose', options: [{ label: 'Blue', value: 'blue' }] }),
      bloc: await postAsPageUser({ type: 'bloc', items: [{ type: 'text', text: 'in a bloc' }, { type: 'image', imageUrl: 'https://example.com/b.png' }] }),
    }
    await expect.poll(() => bubble(ids.bloc).count(), { timeout: 10_000 }).toBe(1)
    expect(await bubble(ids.image).locator('img').getAttribute('src')).toBe('https://example.com/a.png')
    expect(await bubble(ids.audio).locator('audio').getAttribute('src')).toBe('https://example.com/a.mp3')
    expect(await bubble(ids.video).locator('video').getAttribute('src')).toBe('https://example.com/a.mp4')
    expect(await bubble(ids.file).locator('a').textContent()).toBe('The PDF')
    expect(await bubble(ids.file).locator('a').getAttribute('href')).toBe('https://example.com/a.pdf')
    expect(await bubble(ids.location).textContent()).toContain('1 Main St')
    expect(await bubble(ids.location).locator('a').getAttribute('href')).toContain('openstreetmap.org/?mlat=45.5&mlon=-73.6')
    expect(await bubble(ids.card).locator('.card-title').textContent()).toBe('A card')
    expect(await bubble(ids.card).locator('button').textContent()).toBe('Pick me')
    expect(await bubble(ids.card).locator('a').getAttribute('href')).toBe('https://example.com/docs')
    expect(await bubble(ids.carousel).locator('.card-title').allTextContents()).toEqual(['A card', 'Second'])
    expect(await bubble(ids.choice).locator('button').allTextContents()).toEqual(['Yes'])
    expect(await bubble(ids.dropdown).locator('select option').allTextContents()).toEqual(['Choose…', 'Blue'])
    expect(await bubble(ids.bloc).locator('.text').textContent()).toBe('in a bloc')

    // A choice button answers with its value, as the user.
    await bubble(ids.choice).locator('button').click()
    await expect.poll(() => page.locator('.message.mine .bubble').last().textContent(), { timeout: 10_000 }).toBe('yes')
  })
})
