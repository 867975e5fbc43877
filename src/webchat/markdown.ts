import { micromark } from 'micromark'
import { safeUrl } from './urls.ts'

/*
 * Markdown as CommonMark, by micromark (the parser of the unified ecosystem, CommonMark-compliant
 * and small). Its defaults are what a chat needs: HTML in the source is escaped (it shows as text,
 * never becomes elements) and link and image URLs with a dangerous protocol are dropped. Its output
 * is the only HTML the page ever parses.
 */
export function renderMarkdown(source: string): HTMLElement {
  const root = document.createElement('div')
  root.className = 'markdown'
  root.innerHTML = micromark(source)
  for (const a of root.querySelectorAll('a')) {
    // Relative links would lead into Confab: only absolute http(s) and mailto stay links.
    const url = safeUrl(a.getAttribute('href') ?? '')
    if (!url) {
      a.replaceWith(...a.childNodes)
      continue
    }
    a.href = url
    a.target = '_blank'
    a.rel = 'noopener noreferrer'
  }
  for (const img of root.querySelectorAll('img')) {
    if (!safeUrl(img.getAttribute('src') ?? '')) img.replaceWith(document.createTextNode(img.alt))
  }
  return root
}
