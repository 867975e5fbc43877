/**
 * The most of a failed attempt's answer a bot log line keeps (docs/guides/running-on-the-internet.md): the log is read
 * through the admin API, and the answer may come from anywhere the url pointed.
 */
export const excerptBytes = 256

/** Types whose bodies are text worth a look; any other type's body is not shown. */
const textual = /^\s*(text\/|application\/([\w.-]+\+)?(json|xml)\s*(;|$)|application\/x-www-form-urlencoded)/i

/**
 * The start of an answer's body for a log line: at most `excerptBytes` bytes are read (the rest is
 * left unread), decoded as UTF-8 (a character cut at the end dropped), control and format
 * characters (newlines, bidi overrides…) replaced by spaces and runs of spaces collapsed, `…` added
 * when there was more. Empty for a body that is not text (by its content-type; none counts as text).
 */
export async function bodyExcerpt(contentType: string | null, body: AsyncIterable<Uint8Array>): Promise<string> {
  if (contentType !== null && !textual.test(contentType)) return ''
  const chunks: Uint8Array[] = []
  let size = 0
  for await (const chunk of body) {
    chunks.push(chunk)
    size += chunk.byteLength
    if (size > excerptBytes) break
  }
  const bytes = Buffer.concat(chunks)
  const more = bytes.byteLength > excerptBytes
  const text = new TextDecoder('utf-8').decode(bytes.subarray(0, excerptBytes), { stream: more })
  const clean = text
    .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim()
  return more ? `${clean}…` : clean
}
