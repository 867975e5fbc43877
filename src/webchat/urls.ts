/** A URL fit for href/src: absolute http(s) or mailto only, so no `javascript:` or `data:` gets through. */
export function safeUrl(raw: string): string | undefined {
  try {
    const url = new URL(raw)
    return ['http:', 'https:', 'mailto:'].includes(url.protocol) ? url.href : undefined
  } catch {
    return undefined
  }
}
