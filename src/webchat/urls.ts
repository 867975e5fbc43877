/** A URL fit for href/src: absolute http(s) or mailto only, so no `javascript:` or `data:` gets through. */
export function safeUrl(raw: string): string | undefined {
  try {
    const url = new URL(raw)
    return ['http:', 'https:', 'mailto:'].includes(url.protocol) ? url.href : undefined
  } catch {
    return undefined
  }
}

/** A URL fit for an image's src: a safe URL, or a `data:` URL of a raster image (never SVG, which may script). */
export function safeImageUrl(raw: string): string | undefined {
  if (/^data:image\/(png|jpeg|gif|webp|avif);base64,[A-Za-z0-9+/=\s]+$/i.test(raw)) return raw
  const url = safeUrl(raw)
  return url?.startsWith('mailto:') ? undefined : url
}
