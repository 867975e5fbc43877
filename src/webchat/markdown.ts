import { safeUrl } from './urls.ts'

/*
 * A small Markdown renderer that builds DOM nodes and never parses HTML: any markup in the source
 * stays text. It covers what chat messages use: paragraphs and line breaks, **bold**, *italic*,
 * `code`, [links](https://…) with safe URLs, and "- " lists.
 */

const inline = /(\*\*([^*]+)\*\*|\*([^*]+)\*|`([^`]+)`|\[([^\]]+)\]\(([^)\s]+)\))/g

function renderInline(text: string, into: Node): void {
  let last = 0
  for (const match of text.matchAll(inline)) {
    const index = match.index ?? 0
    if (index > last) into.appendChild(document.createTextNode(text.slice(last, index)))
    const [, , bold, italic, code, label, href] = match
    if (bold !== undefined) {
      const strong = document.createElement('strong')
      renderInline(bold, strong)
      into.appendChild(strong)
    } else if (italic !== undefined) {
      const em = document.createElement('em')
      renderInline(italic, em)
      into.appendChild(em)
    } else if (code !== undefined) {
      const element = document.createElement('code')
      element.textContent = code
      into.appendChild(element)
    } else if (label !== undefined && href !== undefined) {
      const url = safeUrl(href)
      if (url) {
        const a = document.createElement('a')
        a.href = url
        a.target = '_blank'
        a.rel = 'noopener noreferrer'
        a.textContent = label
        into.appendChild(a)
      } else {
        into.appendChild(document.createTextNode(match[0]))
      }
    }
    last = index + match[0].length
  }
  if (last < text.length) into.appendChild(document.createTextNode(text.slice(last)))
}

export function renderMarkdown(source: string): HTMLElement {
  const root = document.createElement('div')
  root.className = 'markdown'
  for (const block of source.split(/\n{2,}/)) {
    const lines = block.split('\n')
    if (lines.every((line) => /^\s*[-*] /.test(line))) {
      const list = document.createElement('ul')
      for (const line of lines) {
        const item = document.createElement('li')
        renderInline(line.replace(/^\s*[-*] /, ''), item)
        list.appendChild(item)
      }
      root.appendChild(list)
      continue
    }
    const paragraph = document.createElement('p')
    lines.forEach((line, i) => {
      if (i > 0) paragraph.appendChild(document.createElement('br'))
      renderInline(line, paragraph)
    })
    root.appendChild(paragraph)
  }
  return root
}
