import { safeUrl } from '../webchat/urls.ts'
import { type Conversation, conversationTitle } from './model.ts'

/*
 * The console's elements, made with the DOM's own calls: what a user wrote is always text, never
 * markup. Media are shown as links, never loaded (the page's policy lets nothing load).
 */

function element<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] {
  const made = document.createElement(tag)
  if (className) made.className = className
  if (text !== undefined) made.textContent = text
  return made
}

const str = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined)

/** A link the agent may follow (in a new tab, telling the site nothing), or the URL as text when it is not http(s). */
function link(url: unknown, label?: string): Node {
  const raw = str(url) ?? ''
  const safe = safeUrl(raw)
  if (!safe || safe.startsWith('mailto:')) return document.createTextNode(raw)
  const a = element('a', undefined, label ?? safe)
  a.href = safe
  a.target = '_blank'
  a.rel = 'noopener noreferrer'
  return a
}

/** A payload as text (and links): the console shows what the user saw, not how it looked. */
export function renderPayload(payload: Record<string, unknown>): HTMLElement {
  const body = element('div', 'text')
  const add = (...parts: (Node | string)[]) => body.append(...parts)
  const options = (items: unknown) =>
    Array.isArray(items)
      ? items
          .map((o) => str((o as { label?: unknown })?.label))
          .filter(Boolean)
          .join(', ')
      : ''
  switch (payload.type) {
    case 'text':
      add(str(payload.text) ?? '')
      break
    case 'markdown':
      add(str(payload.markdown) ?? '')
      break
    case 'image':
    case 'audio':
    case 'video':
    case 'file': {
      const url = payload[`${payload.type}Url`]
      add(`[${payload.type}] `, link(url, str(payload.title) ?? str(url)))
      break
    }
    case 'location':
      add(`[location] ${str(payload.address) ?? `${payload.latitude}, ${payload.longitude}`}`)
      break
    case 'choice':
    case 'dropdown':
      add(`${str(payload.text) ?? ''} [${payload.type}: ${options(payload.options)}]`)
      break
    case 'card':
      add(`[card] ${str(payload.title) ?? ''}${str(payload.subtitle) ? ` — ${payload.subtitle}` : ''}`)
      break
    case 'carousel':
      add(`[carousel of ${Array.isArray(payload.items) ? payload.items.length : 0} cards]`)
      break
    case 'bloc':
      for (const item of Array.isArray(payload.items) ? payload.items : []) body.append(renderPayload(item as Record<string, unknown>))
      break
    default:
      add(`[${String(payload.type)}]`)
  }
  return body
}

const time = (iso: string): HTMLTimeElement => {
  const at = element('time', undefined, new Date(iso).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }))
  at.dateTime = iso
  return at
}

/** One entry of a conversation's timeline: a message (of the user, the bot or an agent) or an internal note. */
export function renderEntry(entry: {
  id: string
  kind: 'user' | 'bot' | 'agent' | 'note'
  author: string
  createdAt: string
  body: HTMLElement
}): HTMLLIElement {
  const item = element('li', `entry ${entry.kind}`)
  item.dataset.entryId = entry.id
  const meta = element('div', 'meta')
  meta.append(element('span', 'author', entry.author), time(entry.createdAt))
  if (entry.kind === 'note') meta.append(element('span', 'tag', 'Internal note'))
  item.append(meta, entry.body)
  return item
}

/** How long ago, in words short enough for a list. */
function ago(iso: string | undefined, now: number): string {
  if (!iso) return ''
  const minutes = Math.max(0, Math.floor((now - Date.parse(iso)) / 60_000))
  return minutes < 1 ? 'just now' : minutes < 60 ? `${minutes} min ago` : `${Math.floor(minutes / 60)} h ago`
}

/** A conversation of a list (the queue, the agent's): a button that opens it, with its unread count. */
export function renderListItem(c: Conversation, { selected, unread, now }: { selected: boolean; unread: number; now: number }): HTMLLIElement {
  const item = element('li')
  const button = element('button')
  button.type = 'button'
  button.dataset.conversation = `${c.botId}/${c.id}`
  button.setAttribute('aria-current', String(selected))
  button.append(element('span', 'item-title', conversationTitle(c)), element('span', 'item-meta', `${c.ownerId} · ${ago(c.handedOffAt ?? c.updatedAt, now)}`))
  if (unread > 0) {
    const badge = element('span', 'unread', String(unread))
    badge.setAttribute('aria-label', `${unread} unread`)
    button.append(badge)
  }
  item.append(button)
  return item
}
