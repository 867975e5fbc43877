import { mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { WEBHOOK_ID } from '../helpers/app.ts'
import { launchChromium } from '../helpers/browser.ts'
import { type Listening, startListening } from '../helpers/listening.ts'

// Screenshots to look at by eye (not committed): SCREENSHOT_DIR, else a folder of the temporary directory.
const screenshots = process.env.SCREENSHOT_DIR ?? join(tmpdir(), 'confab-webchat-screenshots')
mkdirSync(screenshots, { recursive: true })
const screenshot = (name: string) => page.screenshot({ path: join(screenshots, `${name}.png`) })

const PNG_1X1 = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='

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
  return page.evaluate(
    (webhookId) => ({
      key: localStorage.getItem(`confab:${webhookId}:key`) as string,
      conversationId: localStorage.getItem(`confab:${webhookId}:conversation`) as string,
    }),
    WEBHOOK_ID,
  )
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
    await expect.poll(() => page.locator('.message.bot .bubble').allTextContents(), { timeout: 10_000 }).toEqual(['Hello from the browser'])
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
      bloc: await postAsPageUser({
        type: 'bloc',
        items: [
          { type: 'text', text: 'in a bloc' },
          { type: 'image', imageUrl: 'https://example.com/b.png' },
        ],
      }),
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

    await screenshot('payload-kinds')
  })
})

describe('web chat: what a finished chat widget shows', () => {
  it('an empty state until the first message, then each message with its author, avatar and time', async () => {
    expect(await page.locator('#empty').isVisible()).toBe(true)
    expect(await page.locator('#empty').textContent()).toBe('No messages yet' + 'Say hello: the bot answers here.')
    await screenshot('empty')
    await page.fill('#text', 'Hello there')
    await page.press('#text', 'Enter')
    await expect.poll(() => page.locator('.message.bot .bubble').allTextContents(), { timeout: 10_000 }).toEqual(['Hello there'])
    expect(await page.locator('#empty').isVisible()).toBe(false)
    const { key, conversationId } = await pageSession()
    const stored = (await t.chat('GET', `/conversations/${conversationId}/messages`, { key })).body.messages as { id: string; createdAt: string }[]
    for (const message of stored) {
      expect(await page.locator(`[data-message-id="${message.id}"] time`).getAttribute('datetime')).toBe(message.createdAt)
    }
    expect(await page.locator('.message.bot .author').textContent()).toBe('Echo bot')
    expect(await page.locator('.message.bot .avatar').textContent()).toBe('E')
    expect(await page.locator('.message.mine .author').textContent()).toBe('You')
    expect(await page.locator('.message time').first().textContent()).toMatch(/\d{1,2}:\d\d/)
    // The header names the bot once it has spoken.
    expect(await page.locator('#title').textContent()).toBe('EEcho bot')
    await screenshot('conversation')
  })

  it("shows another participant's typing, named, until it stops", async () => {
    const { key, conversationId } = await pageSession()
    const bob = await t.user('bob', { name: 'Bob' })
    expect((await t.chat('POST', `/conversations/${conversationId}/participants`, { key, body: { userId: 'bob' } })).status).toBe(200)
    await postAsPageUser({ type: 'text', text: 'Bob, are you there?' })
    expect((await t.chat('POST', `/conversations/${conversationId}/typing`, { key: bob.key, body: {} })).status).toBe(200)
    await expect.poll(() => page.locator('#typing').textContent(), { timeout: 10_000 }).toBe('Bob is typing…')
    expect(await page.locator('#typing').getAttribute('aria-live')).toBe('polite')
    await screenshot('typing')
    expect((await t.chat('DELETE', `/conversations/${conversationId}/typing`, { key: bob.key, body: {} })).status).toBe(200)
    await expect.poll(() => page.locator('#typing').isVisible(), { timeout: 10_000 }).toBe(false)
  })

  it('renders markdown as CommonMark: emphasis with _ and *, strong, code, lists, links; HTML stays text', async () => {
    const id = await postAsPageUser({
      type: 'markdown',
      markdown:
        '_italic_ and *also italic*, **bold**, `code` <b>not bold</b>\n\n1. one\n2. two\n\n> quoted\n\n[docs](https://example.com/docs) [write](mailto:help@example.com) [inside](/v1/admin)\n\n```\nblock\n```',
    })
    await expect.poll(() => bubble(id).locator('em').allTextContents(), { timeout: 10_000 }).toEqual(['italic', 'also italic'])
    expect(await bubble(id).locator('strong').allTextContents()).toEqual(['bold'])
    expect(await bubble(id).locator('p code').allTextContents()).toEqual(['code'])
    expect(await bubble(id).locator('b').count()).toBe(0)
    expect(await bubble(id).locator('p').first().textContent()).toContain('<b>not bold</b>')
    expect(await bubble(id).locator('ol li').allTextContents()).toEqual(['one', 'two'])
    expect(await bubble(id).locator('blockquote').textContent()).toContain('quoted')
    const link = bubble(id).locator('a').first()
    expect([await link.getAttribute('href'), await link.getAttribute('target'), await link.getAttribute('rel')]).toEqual([
      'https://example.com/docs',
      '_blank',
      'noopener noreferrer',
    ])
    // mailto stays a link; a relative one (it would lead into Confab) is plain text.
    expect(
      await bubble(id)
        .locator('a')
        .evaluateAll((links) => links.map((a) => a.getAttribute('href'))),
    ).toEqual(['https://example.com/docs', 'mailto:help@example.com'])
    expect(await bubble(id).textContent()).toContain('inside')
    expect(await bubble(id).locator('pre code').textContent()).toBe('block\n')
    // A text message is shown as written: Markdown is a markdown message's (the guide says so).
    const text = await postAsPageUser({ type: 'text', text: '**not bold** _nor italic_' })
    await expect.poll(() => bubble(text).textContent(), { timeout: 10_000 }).toContain('**not bold** _nor italic_')
    expect(await bubble(text).locator('strong, em').count()).toBe(0)
  })

  it('shows data: and https images', async () => {
    const dataImage = await postAsPageUser({ type: 'image', imageUrl: PNG_1X1 })
    const httpsImage = await postAsPageUser({ type: 'image', imageUrl: 'https://example.com/photo.png' })
    const svg = await postAsPageUser({ type: 'image', imageUrl: 'data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=' })
    await expect.poll(() => bubble(svg).count(), { timeout: 10_000 }).toBe(1)
    expect(await bubble(dataImage).locator('img').getAttribute('src')).toBe(PNG_1X1)
    await expect
      .poll(() =>
        bubble(dataImage)
          .locator('img')
          .evaluate((img) => (img as HTMLImageElement).naturalWidth),
      )
      .toBe(1)
    expect(await bubble(httpsImage).locator('img').getAttribute('src')).toBe('https://example.com/photo.png')
    // Only raster data: images: an SVG one shows as its URL.
    expect(await bubble(svg).locator('img').count()).toBe(0)
  })

  it('a choice posts its label as the text and keeps its value in the payload; so does a dropdown', async () => {
    const choice = await postAsPageUser({
      type: 'choice',
      text: 'Favourite colour?',
      options: [
        { label: 'Blue', value: 'blue' },
        { label: 'Red', value: 'red' },
      ],
    })
    await bubble(choice).getByRole('button', { name: 'Blue' }).click()
    await expect.poll(() => page.locator('.message.mine .bubble').last().textContent(), { timeout: 10_000 }).toBe('Blue')
    const dropdown = await postAsPageUser({ type: 'dropdown', text: 'Size?', options: [{ label: 'Large', value: 'L' }] })
    await bubble(dropdown).getByRole('combobox', { name: 'Size?' }).selectOption('L')
    await expect.poll(() => page.locator('.message.mine .bubble').last().textContent(), { timeout: 10_000 }).toBe('Large')
    const { key, conversationId } = await pageSession()
    const { messages } = (await t.chat('GET', `/conversations/${conversationId}/messages`, { key })).body
    const sent = messages.filter((m: { payload: { type: string; value?: string } }) => m.payload.type === 'text' && m.payload.value)
    expect(sent.map((m: { payload: unknown }) => m.payload)).toEqual(
      expect.arrayContaining([
        { type: 'text', text: 'Blue', value: 'blue' },
        { type: 'text', text: 'Large', value: 'L' },
      ]),
    )
  })

  it('works from the keyboard, and announces new messages (role=log, aria-live=polite)', async () => {
    expect(await page.locator('#messages').getAttribute('role')).toBe('log')
    expect(await page.locator('#messages').getAttribute('aria-live')).toBe('polite')
    expect(await page.getByLabel('Message', { exact: true }).evaluate((el) => el === document.activeElement)).toBe(true)
    await page.keyboard.type('typed, not clicked')
    await page.keyboard.press('Enter')
    await expect.poll(() => page.locator('.message.bot .bubble').allTextContents(), { timeout: 10_000 }).toEqual(['typed, not clicked'])
    const choice = await postAsPageUser({ type: 'choice', text: 'Pick', options: [{ label: 'Keyboard', value: 'kb' }] })
    await bubble(choice).getByRole('button', { name: 'Keyboard' }).focus()
    await page.keyboard.press('Enter')
    await expect.poll(() => page.locator('.message.mine .bubble').last().textContent(), { timeout: 10_000 }).toBe('Keyboard')
  })
})
