import { type Browser, chromium, type Page } from 'playwright-core'

// Debian's chromium (.ci/run installs it); the flags keep it off the network this machine lacks.
const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

export const launchChromium = (): Promise<Browser> =>
  chromium.launch({
    executablePath: chromiumPath,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  })

/**
 * Aborts every request of the page that leaves 127.0.0.1, as a machine without internet would, and
 * returns the list of those it attempted.
 */
export async function offline(page: Page): Promise<string[]> {
  const attempted: string[] = []
  await page.route(
    (url) => url.hostname !== '127.0.0.1',
    (route) => {
      attempted.push(route.request().url())
      return route.abort('internetdisconnected')
    },
  )
  return attempted
}

/** Collects the page's uncaught errors and Content-Security-Policy violations, from its first script on. */
export async function recordPageFaults(page: Page): Promise<string[]> {
  const faults: string[] = []
  page.on('pageerror', (error) => faults.push(`error: ${error.message}`))
  page.on('console', (message) => {
    if (message.text().startsWith('CSP violation:')) faults.push(message.text())
  })
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`)
    })
  })
  return faults
}
