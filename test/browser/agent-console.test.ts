import { mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client as ChatClient } from '@botpress/chat'
import type { Client } from '@botpress/client'
import type { Browser, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { type AgentKey, agentDesk, botClient } from '../helpers/agents.ts'
import { launchChromium, offline, recordPageFaults } from '../helpers/browser.ts'
import { type Listening, PING, startListening } from '../helpers/listening.ts'
import { SseReader } from '../helpers/sse.ts'
import { eventually } from '../helpers/wait.ts'

// The agent console (/v1/agent/console; docs/guides/handoff.md) in Chromium, on a 1366×768 laptop
// screen, against the real HTTP server: an agent signs in with its key, sees a conversation the bot
// handed off (hitl:startHitl) arrive in the queue live, claims it and answers; the user gets the
// answer and the agent's typing; the user's next messages arrive live, counted unread while the
// agent looks elsewhere; the agent releases, transfers and closes. The page loads nothing but its
// own script and the agent API, under its Content-Security-Policy.

// Screenshots to look at by eye (not committed): SCREENSHOT_DIR, else a folder of the temporary directory.
const screenshots = process.env.SCREENSHOT_DIR ?? join(tmpdir(), 'confab-agent-console-screenshots')
mkdirSync(screenshots, { recursive: true })
const screenshot = (name: string) => page.screenshot({ path: join(screenshots, `${name}.png`) })

let browser: Browser
let s: Listening
let desk: ReturnType<typeof agentDesk>
let bot: Client
let alice: Awaited<ReturnType<typeof ChatClient.connect>>
let ada: AgentKey
let bo: AgentKey
let page: Page
let attemptedOffline: string[]
let faults: string[]
/** Every URL the page asked for. */
let requested: string[]

const text = (value: string) => ({ type: 'text' as const, text: value })

beforeAll(async () => {
  browser = await launchChromium()
}, 60_000)

afterAll(async () => {
  await browser?.close()
})

beforeEach(async () => {
  s = await startListening()
  desk = agentDesk(s.baseUrl)
  bot = await botClient(s.baseUrl, s.botId)
  alice = await ChatClient.connect({ apiUrl: s.apiUrl, userId: 'alice' })
  ada = await desk.createAgent('Ada')
  bo = await desk.createAgent('Bo')
  page = await browser.newPage({ viewport: { width: 1366, height: 768 } })
  attemptedOffline = await offline(page)
  faults = await recordPageFaults(page)
  requested = []
  page.on('request', (request) => requested.push(request.url()))
}, 60_000)

afterEach(async () => {
  await page?.close()
  await s?.close()
})

/** Opens the console and signs in with `agent`'s key; resolves once both live feeds are subscribed. */
async function signIn(agent: AgentKey) {
  const baseline = s.t.app.signals.activeSubscriptions()
  if (!page.url().endsWith('/v1/agent/console')) await page.goto(`${s.baseUrl}/v1/agent/console`)
  await page.getByLabel('Agent key').fill(agent.key)
  await page.getByRole('button', { name: 'Sign in', exact: true }).click()
  await expect.poll(() => page.locator('#status').textContent(), { timeout: 15_000 }).toBe('Live')
  await eventually(() => expect(s.t.app.signals.activeSubscriptions()).toBe(baseline + 2))
}

/** The bot hands alice's conversation `id` off, with a title for the queue. */
async function handOff(id: string, title: string) {
  await bot.callAction({ type: 'hitl:startHitl', input: { userId: 'alice', conversationId: id, title, messageHistory: [] } })
}

const listItems = (list: 'queue' | 'mine') => page.locator(`#${list} .item-title`).allTextContents()
const timeline = () => page.locator('#timeline .entry').evaluateAll((entries) => entries.map((e) => [e.className, e.querySelector('.text')?.textContent]))

/** What alice's own listener of a conversation hears (the Chat API's SSE), pings aside. */
async function aliceListens(conversationId: string) {
  const baseline = s.t.app.signals.activeSubscriptions()
  const response = await fetch(`${s.apiUrl}/conversations/${conversationId}/listen`, { headers: { 'x-user-key': alice.user.key } })
  expect(response.status).toBe(200)
  const reader = new SseReader(response.body as ReadableStream<Uint8Array>)
  await eventually(() => expect(s.t.app.signals.activeSubscriptions()).toBe(baseline + 1))
  return { next: async () => JSON.parse((await reader.message((b) => b.data === PING))?.data ?? 'null'), close: () => reader.cancel() }
}

describe('the agent console page', () => {
  it('is served under a strict policy, asks for nothing elsewhere, and keeps the key in the tab, out of every URL', async () => {
    const response = await page.goto(`${s.baseUrl}/v1/agent/console`)
    expect(response?.status()).toBe(200)
    expect(response?.headers()['content-security-policy']).toMatch(
      /^default-src 'none'; script-src 'self'; style-src 'sha256-[A-Za-z0-9+/]{43}='; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'; require-trusted-types-for 'script'$/,
    )
    expect(response?.headers()).toMatchObject({ 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' })
    await signIn(ada)
    expect(await page.locator('#who').textContent()).toBe('Ada')
    expect(await page.evaluate(() => [sessionStorage.getItem('confab:agent-key'), localStorage.length])).toEqual([ada.key, 0])
    expect(requested.filter((url) => !url.startsWith(`${s.baseUrl}/`) || url.includes(ada.key))).toEqual([])
    expect(requested).toContain(`${s.baseUrl}/v1/agent/console.js`)
    // A reload keeps the session (the tab's storage); signing out forgets the key.
    await page.reload()
    await expect.poll(() => page.locator('#status').textContent(), { timeout: 15_000 }).toBe('Live')
    await page.getByRole('button', { name: 'Sign out', exact: true }).click()
    expect(await page.evaluate(() => sessionStorage.getItem('confab:agent-key'))).toBeNull()
    await expect.poll(() => page.getByLabel('Agent key').isVisible()).toBe(true)
    expect(attemptedOffline).toEqual([])
    expect(faults).toEqual([])
  })

  it("says the API's refusal of a key that opens nothing, and keeps nothing", async () => {
    await page.goto(`${s.baseUrl}/v1/agent/console`)
    await page.getByLabel('Agent key').fill('agk_not-a-key')
    await page.getByRole('button', { name: 'Sign in', exact: true }).click()
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('Unauthorized: a valid agent key (Authorization: Bearer agk_…) is required')
    expect(await page.evaluate(() => sessionStorage.getItem('confab:agent-key'))).toBeNull()
    expect(await page.locator('#desk').isHidden()).toBe(true)
    expect(faults).toEqual([])
  })
})

describe('a handoff in the console', () => {
  it('queue live → claim → reply (the user sees it, and the typing) → the next message live and unread → release', async () => {
    await alice.createConversation({ id: 'c1' })
    await alice.createConversation({ id: 'c2' })
    await alice.createMessage({ conversationId: 'c1', payload: text('I want a human') })
    // The echo bot answers before the handoff.
    await eventually(async () => expect((await alice.listMessages({ conversationId: 'c1' })).messages).toHaveLength(2))
    await signIn(ada)
    expect(await listItems('queue')).toEqual([])

    await handOff('c1', 'Refund')
    await expect.poll(() => listItems('queue')).toEqual(['Refund'])
    await page
      .locator('#queue')
      .getByRole('button', { name: /Refund/ })
      .click()
    await expect
      .poll(() => timeline())
      .toEqual([
        ['entry user', 'I want a human'],
        ['entry bot', 'I want a human'],
      ])
    expect(await page.getByLabel('Reply to the user').isDisabled()).toBe(true)

    await page.getByRole('button', { name: 'Claim', exact: true }).click()
    await expect.poll(() => listItems('mine')).toEqual(['Refund'])
    expect(await listItems('queue')).toEqual([])
    expect(await page.locator('#conversation-meta').textContent()).toBe('User alice · held by you · conversation c1')
    // Everything the agent works with fits a laptop screen.
    for (const control of ['#send', '#note-text', '#release', '#transfer', '#close', '#mine']) {
      const box = await page.locator(control).boundingBox()
      expect(box && box.x + box.width <= 1366 && box.y + box.height <= 768, control).toBe(true)
    }

    const heard = await aliceListens('c1')
    await page.getByLabel('Reply to the user').fill('Ada here, how can I help?')
    expect(await heard.next()).toEqual({ type: 'typing_started', data: { conversationId: 'c1', userId: `agent:${ada.id}`, timeout: 5000 } })
    await page.getByLabel('Reply to the user').press('Enter')
    expect(await heard.next()).toMatchObject({ type: 'message_created', data: { userId: `agent:${ada.id}`, payload: text('Ada here, how can I help?') } })
    expect(await heard.next()).toEqual({ type: 'typing_stopped', data: { conversationId: 'c1', userId: `agent:${ada.id}` } })
    await heard.close()
    expect((await alice.listMessages({ conversationId: 'c1' })).messages[0]).toMatchObject({
      userId: `agent:${ada.id}`,
      payload: text('Ada here, how can I help?'),
    })
    await expect.poll(() => timeline()).toContainEqual(['entry agent', 'Ada here, how can I help?'])

    await page.getByLabel('Internal note (agents only)').fill('VIP customer')
    await page.getByRole('button', { name: 'Add note', exact: true }).click()
    await expect.poll(() => timeline()).toContainEqual(['entry note', 'VIP customer'])
    expect(await page.locator('#timeline .entry.note .tag').textContent()).toBe('Internal note')
    expect(JSON.stringify((await alice.listMessages({ conversationId: 'c1' })).messages)).not.toContain('VIP customer')
    await screenshot('held')

    // The user's next message arrives live in the open conversation: nothing unread.
    await alice.createMessage({ conversationId: 'c1', payload: text('are you a person?') })
    await expect.poll(() => timeline()).toContainEqual(['entry user', 'are you a person?'])
    expect(await page.title()).toBe('Confab agent console')

    // Looking at another conversation, the next one is counted unread, in the list and the title.
    await handOff('c2', 'Shipping')
    await expect.poll(() => listItems('queue')).toEqual(['Shipping'])
    await page
      .locator('#queue')
      .getByRole('button', { name: /Shipping/ })
      .click()
    await expect.poll(() => page.locator('#conversation-title').textContent()).toBe('Shipping')
    await alice.createMessage({ conversationId: 'c1', payload: text('my order is late') })
    await expect.poll(() => page.locator('#mine').getByLabel('1 unread').count()).toBe(1)
    expect(await page.title()).toBe('(1) Confab agent console')
    await screenshot('unread')
    await page
      .locator('#mine')
      .getByRole('button', { name: /Refund/ })
      .click()
    await expect.poll(() => timeline()).toContainEqual(['entry user', 'my order is late'])
    expect(await page.title()).toBe('Confab agent console')
    expect(await page.locator('#mine .unread').count()).toBe(0)

    await page.getByRole('button', { name: 'Release to the bot', exact: true }).click()
    await expect.poll(() => page.locator('#notice').textContent()).toBe('Refund went back to the bot')
    await expect.poll(() => listItems('mine')).toEqual([])
    const conversations = await s.t.admin('GET', `/bots/${s.botId}/conversations`)
    expect(conversations.body.conversations.find((c: { id: string }) => c.id === 'c1')).toMatchObject({ handledBy: 'bot' })
    // The bot answers again.
    await alice.createMessage({ conversationId: 'c1', payload: text('thanks') })
    await eventually(async () =>
      expect((await alice.listMessages({ conversationId: 'c1' })).messages[0]).toMatchObject({ userId: s.botId, payload: text('thanks') }),
    )

    expect(requested.filter((url) => !url.startsWith(`${s.baseUrl}/`) || url.includes(ada.key))).toEqual([])
    expect(attemptedOffline).toEqual([])
    expect(faults).toEqual([])
  })

  it("follows a waiting conversation's own feed once opened: the user's new messages arrive live before the claim, once after it", async () => {
    await alice.createConversation({ id: 'c1' })
    await handOff('c1', 'Refund')
    await signIn(ada)
    const listening = s.t.app.signals.activeSubscriptions()
    await page
      .locator('#queue')
      .getByRole('button', { name: /Refund/ })
      .click()
    await expect.poll(() => page.locator('#conversation-title').textContent()).toBe('Refund')
    // Its feed (listenConversation) is open: the agent does not hold it, so its own feed does not carry it.
    await eventually(() => expect(s.t.app.signals.activeSubscriptions()).toBe(listening + 1))
    await alice.createMessage({ conversationId: 'c1', payload: text('is anyone there?') })
    await expect.poll(() => timeline()).toEqual([['entry user', 'is anyone there?']])
    expect(await page.title()).toBe('Confab agent console')

    // Claimed, it is carried by the agent's own feed: the conversation's feed ends, nothing comes twice.
    await page.getByRole('button', { name: 'Claim', exact: true }).click()
    await expect.poll(() => listItems('mine')).toEqual(['Refund'])
    await eventually(() => expect(s.t.app.signals.activeSubscriptions()).toBe(listening))
    await alice.createMessage({ conversationId: 'c1', payload: text('hello?') })
    await expect
      .poll(() => timeline())
      .toEqual([
        ['entry user', 'is anyone there?'],
        ['entry user', 'hello?'],
      ])
    expect(faults).toEqual([])
  })

  it('keeps a message that arrived live while the history was being read again, that read answered before it was written', async () => {
    await alice.createConversation({ id: 'c1' })
    await handOff('c1', 'Refund')
    await signIn(ada)
    // Each read of c1's history is answered by the server at once, and handed to the page when the test says.
    const reads: { release: () => Promise<void> }[] = []
    await page.route(
      (url) => url.pathname.endsWith('/c1/messages'),
      async (route) => {
        if (route.request().method() !== 'GET') return route.continue()
        const response = await route.fetch()
        reads.push({ release: () => route.fulfill({ response }) })
      },
    )
    const listening = s.t.app.signals.activeSubscriptions()
    await page
      .locator('#queue')
      .getByRole('button', { name: /Refund/ })
      .click()
    await eventually(() => expect(reads).toHaveLength(1))
    await reads[0]!.release()
    await expect.poll(() => page.locator('#conversation-title').textContent()).toBe('Refund')
    // The conversation's feed is live, and the history is read again (what came meanwhile): that read is answered, still empty.
    await eventually(() => expect(s.t.app.signals.activeSubscriptions()).toBe(listening + 1))
    await eventually(() => expect(reads).toHaveLength(2))
    await alice.createMessage({ conversationId: 'c1', payload: text('is anyone there?') })
    await expect.poll(() => timeline()).toEqual([['entry user', 'is anyone there?']])
    // The read answered before the message comes in now: the timeline it makes keeps the message.
    await page.evaluate(() => {
      const timeline = document.getElementById('timeline') as Node
      ;(window as { replaced?: Promise<void> }).replaced = new Promise((resolve) =>
        new MutationObserver(() => resolve()).observe(timeline, { childList: true }),
      )
    })
    await reads[1]!.release()
    await page.evaluate(() => (window as { replaced?: Promise<void> }).replaced)
    expect(await timeline()).toEqual([['entry user', 'is anyone there?']])
    expect(faults).toEqual([])
  })

  it('transfers to a colleague picked from the list, who closes it from his console', async () => {
    await alice.createConversation({ id: 'c1' })
    const idle = s.t.app.signals.activeSubscriptions()
    await signIn(ada)
    await handOff('c1', 'Refund')
    await page
      .locator('#queue')
      .getByRole('button', { name: /Refund/ })
      .click()
    await page.getByRole('button', { name: 'Claim', exact: true }).click()
    await expect.poll(() => listItems('mine')).toEqual(['Refund'])
    expect(await page.getByLabel('Transfer to agent').locator('option').allTextContents()).toEqual(['Bo'])
    await page.getByLabel('Transfer to agent').selectOption({ label: 'Bo' })
    await page.getByRole('button', { name: 'Transfer', exact: true }).click()
    await expect.poll(() => page.locator('#notice').textContent()).toBe('Refund was transferred to Bo')
    await expect.poll(() => listItems('mine')).toEqual([])
    expect((await desk.asAgent(bo, 'GET', '/conversations')).body.conversations).toMatchObject([{ id: 'c1', agentId: bo.id }])

    await page.getByRole('button', { name: 'Sign out', exact: true }).click()
    // Ada's feeds end with her session.
    await eventually(() => expect(s.t.app.signals.activeSubscriptions()).toBe(idle))
    await signIn(bo)
    await expect.poll(() => listItems('mine')).toEqual(['Refund'])
    await page
      .locator('#mine')
      .getByRole('button', { name: /Refund/ })
      .click()
    await page.getByRole('button', { name: 'Close', exact: true }).click()
    await expect.poll(() => page.locator('#conversation-meta').textContent()).toBe('User alice · closed · conversation c1')
    expect(await page.getByLabel('Reply to the user').isDisabled()).toBe(true)
    await expect.poll(() => listItems('mine')).toEqual([])
    expect(faults).toEqual([])
  })

  it('says when its feeds drop, opens them again, and reads what it missed meanwhile', async () => {
    await alice.createConversation({ id: 'c1' })
    await alice.createConversation({ id: 'c2' })
    await handOff('c1', 'Refund')
    expect(await desk.asAgent(ada, 'POST', `/bots/${s.botId}/conversations/c1/claim`, {})).toMatchObject({ status: 200 })
    const idle = s.t.app.signals.activeSubscriptions()
    await signIn(ada)
    await page
      .locator('#mine')
      .getByRole('button', { name: /Refund/ })
      .click()
    await expect.poll(() => page.locator('#conversation-title').textContent()).toBe('Refund')

    // The feeds end (as when an instance stops) and cannot be opened again until the test says so.
    let reopen = () => {}
    const reopened = new Promise<void>((resolve) => {
      reopen = resolve
    })
    await page.route('**/listen', async (route) => {
      await reopened
      await route.continue()
    })
    s.t.app.streams.closeAll()
    await expect.poll(() => page.locator('#status').textContent()).toBe('Reconnecting…')
    await eventually(() => expect(s.t.app.signals.activeSubscriptions()).toBe(idle))
    await alice.createMessage({ conversationId: 'c1', payload: text('did you get this?') })
    await handOff('c2', 'Shipping')

    reopen()
    await expect.poll(() => page.locator('#status').textContent(), { timeout: 15_000 }).toBe('Live')
    await expect.poll(() => timeline()).toContainEqual(['entry user', 'did you get this?'])
    await expect.poll(() => listItems('queue')).toEqual(['Shipping'])
    expect(faults).toEqual([])
  })

  it("says the API's refusal in the page: a conversation another agent claimed first", async () => {
    await alice.createConversation({ id: 'c1' })
    await signIn(ada)
    await handOff('c1', 'Refund')
    await page
      .locator('#queue')
      .getByRole('button', { name: /Refund/ })
      .click()
    await expect.poll(() => page.locator('#conversation-title').textContent()).toBe('Refund')
    // Bo claims it between the page's look and Ada's click.
    await page.route('**/claim', async (route) => {
      expect((await desk.asAgent(bo, 'POST', `/bots/${s.botId}/conversations/c1/claim`, {})).status).toBe(200)
      await route.continue()
    })
    await page.getByRole('button', { name: 'Claim', exact: true }).click()
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/^(AlreadyExists|ResourceNotFound): /)
    await expect.poll(() => listItems('queue')).toEqual([])
  })
})
