// Before the web chat starts: can this page reach Confab? The official web chat spins forever when
// Confab refuses the page's origin (CORS), so the page says it instead, with the fix.

/** Why the page cannot use Confab's chat API at `apiUrl/clientId`, or undefined when it can. */
export async function whyConfabIsOutOfReach(apiUrl, clientId) {
  const hello = `${apiUrl}/${encodeURIComponent(clientId)}/hello`
  try {
    const response = await fetch(hello)
    if (response.status === 404) return `Confab at ${apiUrl} has no chat integration with the webhook id "${clientId}".`
    return response.ok ? undefined : `Confab at ${apiUrl} answered ${response.status} to ${hello}.`
  } catch {
    // An opaque no-cors request goes through when Confab is up: then it refused this origin.
    const up = await fetch(hello, { mode: 'no-cors' }).then(() => true, () => false)
    if (!up) return `Confab does not answer at ${apiUrl}: is it running there?`
    return `Confab at ${apiUrl} refuses this page's origin (CORS). Start it with CORS_ORIGINS=${location.origin} (a comma-separated list).`
  }
}
