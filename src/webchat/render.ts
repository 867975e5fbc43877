import type { WebChatCardFragment, WebChatMessageFragment } from './__generated__/graphql.ts'
import { renderMarkdown } from './markdown.ts'
import { safeImageUrl, safeUrl } from './urls.ts'

type Payload = WebChatMessageFragment['payload']
type BlocItem = Extract<Payload, { __typename: 'BlocPayload' }>['blocItems'][number]

/** What a button in a message does: send its label as the user's reply, its value in the payload. */
export type Say = (label: string, value: string) => void

const element = <K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string) => {
  const node = document.createElement(tag)
  if (className) node.className = className
  if (text !== undefined) node.textContent = text
  return node
}

/** A link if the URL is safe, else the URL as plain text. */
function link(href: string, label: string): HTMLElement {
  const url = safeUrl(href)
  if (!url) return element('span', 'unsafe-link', label)
  const a = element('a', undefined, label)
  a.href = url
  a.target = '_blank'
  a.rel = 'noopener noreferrer'
  return a
}

function media(tag: 'img' | 'audio' | 'video', src: string): HTMLElement {
  const url = tag === 'img' ? safeImageUrl(src) : safeUrl(src)
  if (!url) return element('span', 'unsafe-link', src)
  const node = element(tag)
  node.src = url
  if (tag === 'img') (node as HTMLImageElement).alt = ''
  else (node as HTMLMediaElement).controls = true
  return node
}

function card(payload: WebChatCardFragment, say: Say): HTMLElement {
  const box = element('div', 'card')
  if (payload.cardImage) box.appendChild(media('img', payload.cardImage))
  box.appendChild(element('strong', 'card-title', payload.title))
  if (payload.subtitle) box.appendChild(element('div', 'card-subtitle', payload.subtitle))
  const actions = element('div', 'actions')
  for (const action of payload.actions) {
    if (action.action === 'url') {
      actions.appendChild(link(action.value, action.label))
    } else {
      const button = element('button', undefined, action.label)
      button.type = 'button'
      button.addEventListener('click', () => say(action.label, action.value))
      actions.appendChild(button)
    }
  }
  box.appendChild(actions)
  return box
}

function location(latitude: number, longitude: number, address?: string | null, title?: string | null) {
  const place = element('div', 'location')
  if (title) place.appendChild(element('strong', undefined, title))
  if (address) place.appendChild(element('div', undefined, address))
  place.appendChild(
    link(`https://www.openstreetmap.org/?mlat=${latitude}&mlon=${longitude}#map=16/${latitude}/${longitude}`, `${latitude}, ${longitude} on the map`),
  )
  return place
}

function item(payload: BlocItem): HTMLElement {
  switch (payload.__typename) {
    case 'TextPayload':
      return element('div', 'text', payload.text)
    case 'MarkdownPayload':
      return renderMarkdown(payload.markdown)
    case 'ImagePayload':
      return media('img', payload.image)
    case 'AudioPayload':
      return media('audio', payload.audioUrl)
    case 'VideoPayload':
      return media('video', payload.videoUrl)
    case 'FilePayload':
      return link(payload.fileUrl, payload.fileTitle ?? payload.fileUrl)
    case 'LocationPayload':
      return location(payload.latitude, payload.longitude, payload.address, payload.locationTitle)
  }
}

/** The content of a message, the way a chat widget shows each payload kind. */
export function renderPayload(payload: Payload, say: Say): HTMLElement {
  switch (payload.__typename) {
    case 'CardPayload':
      return card(payload, say)
    case 'CarouselPayload': {
      const row = element('div', 'carousel')
      for (const each of payload.cards) row.appendChild(card(each, say))
      return row
    }
    case 'ChoicePayload': {
      const box = element('div', 'choice')
      box.appendChild(element('div', 'text', payload.text))
      for (const option of payload.options) {
        const button = element('button', undefined, option.label)
        button.type = 'button'
        button.addEventListener('click', () => say(option.label, option.value))
        box.appendChild(button)
      }
      return box
    }
    case 'DropdownPayload': {
      const box = element('div', 'dropdown')
      box.appendChild(element('div', 'text', payload.text))
      const select = element('select')
      select.setAttribute('aria-label', payload.text)
      select.appendChild(element('option', undefined, 'Choose…'))
      for (const option of payload.options) {
        const choice = element('option', undefined, option.label)
        choice.value = option.value
        select.appendChild(choice)
      }
      select.addEventListener('change', () => {
        const chosen = select.selectedOptions[0]
        if (select.selectedIndex > 0 && chosen) say(chosen.text, chosen.value)
      })
      box.appendChild(select)
      return box
    }
    case 'BlocPayload': {
      const box = element('div', 'bloc')
      for (const each of payload.blocItems) box.appendChild(item(each))
      return box
    }
    default:
      return item(payload)
  }
}

type Author = WebChatMessageFragment['author']

/** A name to show for an author without one. */
export const displayName = (author: Author) => author.name ?? (author.isBot ? 'Bot' : 'User')

/** The author's picture, or the first letter of its name in a circle. */
export function avatar(author: Author): HTMLElement {
  const picture = author.pictureUrl ? safeImageUrl(author.pictureUrl) : undefined
  if (picture) {
    const img = element('img', 'avatar')
    img.src = picture
    img.alt = ''
    return img
  }
  const initial = element('span', 'avatar', [...displayName(author)][0]?.toUpperCase() ?? '?')
  initial.setAttribute('aria-hidden', 'true')
  return initial
}

const timeFormat = new Intl.DateTimeFormat(undefined, { hour: 'numeric', minute: '2-digit' })
const dateTimeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' })

/** When a message was posted: its time, the full date on hover and for assistive technology. */
function timestamp(createdAt: string): HTMLElement {
  const at = new Date(createdAt)
  const time = element('time', 'time', timeFormat.format(at))
  time.setAttribute('datetime', createdAt)
  time.title = dateTimeFormat.format(at)
  return time
}

export function renderMessage(message: WebChatMessageFragment, mine: boolean, say: Say): HTMLElement {
  const row = element('li', mine ? 'message mine' : message.author.isBot ? 'message bot' : 'message other')
  row.dataset.messageId = message.messageId
  if (!mine) row.appendChild(avatar(message.author))
  const body = element('div', 'body')
  const meta = element('div', 'meta')
  meta.appendChild(element('span', 'author', mine ? 'You' : displayName(message.author)))
  meta.appendChild(timestamp(message.createdAt))
  body.appendChild(meta)
  const bubble = element('div', 'bubble')
  bubble.appendChild(renderPayload(message.payload, say))
  body.appendChild(bubble)
  row.appendChild(body)
  return row
}

/** A line of the conversation that is no one's message: who joined or left, and when. */
export function renderNotice(text: string, at: Date): HTMLElement {
  const row = element('li', 'notice')
  row.appendChild(element('span', undefined, text))
  row.appendChild(timestamp(at.toISOString()))
  return row
}

/**
 * A message the bot is still writing (a message stream): its text grows as its deltas come, shown
 * as plain text; its final message replaces it. The returned `text` is where the deltas go.
 */
export function renderStreamingMessage(author: Author, createdAt: string): { row: HTMLElement; text: HTMLElement } {
  const row = element('li', 'message bot streaming')
  row.appendChild(avatar(author))
  const body = element('div', 'body')
  const meta = element('div', 'meta')
  meta.appendChild(element('span', 'author', displayName(author)))
  if (!Number.isNaN(Date.parse(createdAt))) meta.appendChild(timestamp(createdAt))
  body.appendChild(meta)
  const bubble = element('div', 'bubble')
  bubble.setAttribute('aria-busy', 'true')
  const text = element('div', 'text', '')
  bubble.appendChild(text)
  body.appendChild(bubble)
  row.appendChild(body)
  return { row, text }
}
