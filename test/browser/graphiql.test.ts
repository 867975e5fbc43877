import type { Browser, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { ADMIN_TOKEN, WEBHOOK_ID, WORKSPACE_ID } from '../helpers/app.ts'
import { launchChromium, offline, recordPageFaults } from '../helpers/browser.ts'
import { type Listening, startListening } from '../helpers/listening.ts'

// The page is a 9 MB script: parsing it and starting Monaco takes seconds on a busy machine.
const PAGE_TIMEOUT = 45_000

let browser: Browser
let listening: Listening
let page: Page
let attemptedOffline: string[]
let faults: string[]

beforeAll(async () => {
  browser = await launchChromium()
  // The pages are made and compressed once per process, on their first request: made here, outside
  // any test's time (the servers of the tests share them).
  const warm = await startListening()
  for (const path of [`/${WEBHOOK_ID}/graphql`, '/v1/admin/graphql']) {
    await fetch(`${warm.baseUrl}${path}`, { headers: { accept: 'text/html', 'accept-encoding': 'br' } }).then((response) => response.arrayBuffer())
  }
  await warm.close()
}, 180_000)

afterAll(async () => {
  await browser?.close()
})

beforeEach(async () => {
  listening = await startListening()
  page = await browser.newPage()
  attemptedOffline = await offline(page)
  faults = await recordPageFaults(page)
}, 60_000)

afterEach(async () => {
  await page?.close()
  await listening?.close()
})

/** One of GraphiQL's Monaco editors, by the suffix of its model's URI. */
const editor = (name: 'operation.graphql' | 'request-headers.json') => page.locator(`.monaco-editor[data-uri$="-${name}"]`)

/**
 * Replaces an editor's text as if typed. Monaco auto-closes the brackets and quotes it sees typed,
 * leaving their closing halves after the cursor; those are deleted.
 */
async function replaceText(name: 'operation.graphql' | 'request-headers.json', text: string) {
  await editor(name).click()
  await page.keyboard.press('ControlOrMeta+A')
  await page.keyboard.insertText(text)
  await page.keyboard.press('ControlOrMeta+Shift+End')
  await page.keyboard.press('Delete')
}

/** The result panel's JSON, or undefined while it shows something else (nothing yet, another result). */
async function result(): Promise<unknown> {
  const text = (await page.locator('section.result-window').innerText()).replaceAll('\u00a0', ' ')
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** Opens GraphiQL at `path`, sends `query` with `headers` from its editors, and returns what it shows. */
async function runInGraphiQL(path: string, headers: Record<string, string>, query: string) {
  await page.goto(`${listening.baseUrl}${path}`, { timeout: PAGE_TIMEOUT })
  await editor('request-headers.json').waitFor({ timeout: PAGE_TIMEOUT })
  await replaceText('request-headers.json', JSON.stringify(headers))
  await replaceText('operation.graphql', query)
  await page.getByRole('button', { name: /^Execute query/ }).click()
}

/** Every response the page got with a status of 400 or more, as `status path`. */
function failedResponses(): string[] {
  const failed: string[] = []
  page.on('response', (response) => {
    if (response.status() >= 400) failed.push(`${response.status()} ${new URL(response.url()).pathname}`)
  })
  return failed
}

/** The text of GraphiQL's operation editor (Monaco renders its lines as separate elements). */
const operationText = async () => (await editor('operation.graphql').locator('.view-lines').innerText()).replaceAll('\u00a0', ' ')

/** Opens the documentation explorer at the Query type and waits for it to name `typeName`. */
async function expectDocsToList(typeName: string) {
  await page.getByRole('button', { name: /Show Documentation Explorer/i }).click()
  await page.getByText('Query', { exact: true }).first().click()
  await expect.poll(() => page.locator('.graphiql-doc-explorer').innerText(), { timeout: PAGE_TIMEOUT }).toContain(typeName)
}

describe('GraphiQL opens asking for the credentials in its own words', () => {
  it('on the chat endpoint: the schema loads with no key, nothing answers 4xx', { timeout: 90_000 }, async () => {
    const failed = failedResponses()
    await page.goto(`${listening.baseUrl}/${WEBHOOK_ID}/graphql`, { timeout: PAGE_TIMEOUT })
    await editor('operation.graphql').waitFor({ timeout: PAGE_TIMEOUT })
    await expect.poll(operationText, { timeout: PAGE_TIMEOUT }).toMatch(/^# Confab: /)
    expect(await operationText()).toMatch(/put its key in the Headers tab below,\s+#\s+\{"x-user-key": "<user key>"\}/)
    expect(await operationText()).not.toMatch(/Welcome to GraphiQL/i)
    // The schema arrived: the documentation explorer lists the schema's types.
    await expectDocsToList('Me')
    expect(failed).toEqual([])
    expect(faults).toEqual([])
    expect(attemptedOffline).toEqual([])
  })

  it('on the admin endpoint: the schema is refused without the token, and loads once the headers are typed', { timeout: 90_000 }, async () => {
    const failed = failedResponses()
    await page.goto(`${listening.baseUrl}/v1/admin/graphql`, { timeout: PAGE_TIMEOUT })
    await editor('operation.graphql').waitFor({ timeout: PAGE_TIMEOUT })
    await expect.poll(operationText, { timeout: PAGE_TIMEOUT }).toMatch(/^# Confab: /)
    expect(await operationText()).toMatch(/Put the admin token and the workspace id in the Headers tab below/)
    // GraphiQL's schema fetches without the token: refused, and nothing else.
    await expect.poll(() => failed.length, { timeout: PAGE_TIMEOUT }).toBeGreaterThan(0)
    const refused = [...failed]
    expect(new Set(refused)).toEqual(new Set(['401 /v1/admin/graphql']))
    await replaceText('request-headers.json', JSON.stringify({ authorization: `Bearer ${ADMIN_TOKEN}`, 'x-workspace-id': WORKSPACE_ID }))
    await page.getByRole('button', { name: /Re-fetch GraphQL schema/ }).click()
    await expectDocsToList('Bot')
    expect(failed).toEqual(refused)
    expect(attemptedOffline).toEqual([])
  })
})

describe('GraphiQL', () => {
  it('runs a chat query with the x-user-key typed into its headers, with no network beyond 127.0.0.1', { timeout: 90_000 }, async () => {
    const { key } = await listening.t.user('alice')
    await runInGraphiQL(`/${WEBHOOK_ID}/graphql`, { 'x-user-key': key }, '{ me { userId } }')
    await expect.poll(result, { timeout: PAGE_TIMEOUT }).toEqual({ data: { me: { userId: 'alice' } } })
    expect(await page.title()).toBe('Confab')
    expect(attemptedOffline).toEqual([])
    expect(faults).toEqual([])
  })

  it('runs an admin query with the admin credentials at /v1/admin/graphql', { timeout: 90_000 }, async () => {
    const headers = { authorization: `Bearer ${ADMIN_TOKEN}`, 'x-workspace-id': WORKSPACE_ID }
    await runInGraphiQL('/v1/admin/graphql', headers, '{ bots { edges { node { id } } } }')
    await expect.poll(result, { timeout: PAGE_TIMEOUT }).toEqual({ data: { bots: { edges: [{ node: { id: expect.any(String) } }] } } })
    expect(attemptedOffline).toEqual([])
    expect(faults).toEqual([])
  })
})
