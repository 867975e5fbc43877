import { AgentApi, ApiError } from './api.ts'
import { type Agent, agentUserId, authorOf, type Conversation, conversationTitle, holds, keyOf, type Message, type Note, Unread } from './model.ts'
import { renderEntry, renderListItem, renderPayload } from './render.ts'

/*
 * The agent console served at /v1/agent/console (docs/guides/handoff.md): the agent signs in with its
 * key (kept in sessionStorage: this tab only), sees the queue and its conversations live (the two
 * feeds of the agent API), opens one, claims, answers, notes, transfers, releases or closes it. Every
 * URL is relative to this script's (…/v1/agent/console.js): behind a proxy that serves Confab under a
 * path, the page works unchanged.
 */

const storageKey = 'confab:agent-key'
const baseTitle = 'Confab agent console'
/** How long the user is told the agent types, and how often it is told again while the agent does. */
const typingTimeoutMs = 5_000
const typingEveryMs = 3_000

const $ = <T extends HTMLElement>(id: string): T => {
  const found = document.getElementById(id)
  if (!found) throw new Error(`the agent console page has no #${id}`)
  return found as T
}
const ui = {
  who: $('who'),
  status: $('status'),
  signOut: $<HTMLButtonElement>('sign-out'),
  error: $('error'),
  errorText: $('error-text'),
  dismiss: $<HTMLButtonElement>('dismiss'),
  notice: $('notice'),
  signIn: $<HTMLFormElement>('sign-in'),
  key: $<HTMLInputElement>('key'),
  desk: $('desk'),
  queue: $<HTMLUListElement>('queue'),
  queueHeading: $('queue-heading'),
  queueEmpty: $('queue-empty'),
  mine: $<HTMLUListElement>('mine'),
  mineHeading: $('mine-heading'),
  mineEmpty: $('mine-empty'),
  placeholder: $('placeholder'),
  conversation: $('conversation'),
  title: $('conversation-title'),
  meta: $('conversation-meta'),
  claim: $<HTMLButtonElement>('claim'),
  release: $<HTMLButtonElement>('release'),
  transferTo: $<HTMLSelectElement>('transfer-to'),
  transfer: $<HTMLButtonElement>('transfer'),
  close: $<HTMLButtonElement>('close'),
  timeline: $<HTMLOListElement>('timeline'),
  typing: $('typing'),
  reply: $<HTMLFormElement>('reply'),
  replyText: $<HTMLTextAreaElement>('reply-text'),
  send: $<HTMLButtonElement>('send'),
  note: $<HTMLFormElement>('note'),
  noteText: $<HTMLInputElement>('note-text'),
}

interface Session {
  api: AgentApi
  me: Agent
  agents: Map<string, Agent>
  feeds: AbortController
  live: { queue: boolean; mine: boolean }
}

let session: Session | undefined
let queue: Conversation[] = []
let mine: Conversation[] = []
/** The conversation open, and a count that tells a late answer for one opened before it. */
let open: Conversation | undefined
let opening = 0
const unread = new Unread()
let typingSentAt = 0
let userTyping: ReturnType<typeof setTimeout> | undefined

// What went wrong is said in the page, in the API's words, until dismissed or the next success.
function showError(error: unknown): void {
  const text = error instanceof ApiError ? `${error.type}: ${error.message}` : `Error: ${error instanceof Error ? error.message : String(error)}`
  ui.errorText.textContent = text
  ui.error.hidden = false
}
const clearError = () => {
  ui.error.hidden = true
}
function notify(text: string): void {
  ui.notice.textContent = text
  ui.notice.hidden = text === ''
}

/** Runs what the page does of itself (a feed's news), saying its failure in the page. */
async function quietly(work: () => Promise<unknown>): Promise<void> {
  try {
    await work()
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return signOut(error)
    showError(error)
  }
}

/** Runs an action of the agent: the error of an earlier one goes, its own failure is said. */
function act(action: () => Promise<unknown>): Promise<void> {
  clearError()
  return quietly(action)
}

const api = () => {
  if (!session) throw new Error('not signed in')
  return session.api
}
const at = (c: { botId: string; id: string }) => `bots/${encodeURIComponent(c.botId)}/conversations/${encodeURIComponent(c.id)}`

function renderLists(): void {
  if (!session) return
  const now = Date.now()
  const fill = (list: HTMLUListElement, items: Conversation[], empty: HTMLElement, heading: HTMLElement, name: string) => {
    list.replaceChildren(...items.map((c) => renderListItem(c, { selected: open !== undefined && keyOf(open) === keyOf(c), unread: unread.of(keyOf(c)), now })))
    empty.hidden = items.length > 0
    heading.textContent = `${name} (${items.length})`
  }
  fill(ui.queue, queue, ui.queueEmpty, ui.queueHeading, 'Queue')
  fill(ui.mine, mine, ui.mineEmpty, ui.mineHeading, 'My conversations')
  document.title = unread.title(baseTitle)
}

async function refreshLists(): Promise<void> {
  const [waiting, held] = await Promise.all([
    api().call<{ conversations: Conversation[] }>('GET', 'queue'),
    api().call<{ conversations: Conversation[] }>('GET', 'conversations'),
  ])
  queue = waiting.conversations
  mine = held.conversations
  renderLists()
}

/**
 * The open conversation's own feed (listenConversation), while the feed of the agent's conversations
 * does not carry it: one still waiting (or the bot's, or closed) shows its new messages live too.
 */
let openFeed: { key: string; stop: AbortController } | undefined

function followOpen(): void {
  const c = open
  const wanted = c && session && !holds(session.me, c) ? keyOf(c) : undefined
  if (openFeed?.key === wanted) return
  openFeed?.stop.abort()
  openFeed = undefined
  if (!c || !session || wanted === undefined) return
  const current = session
  const stop = new AbortController()
  openFeed = { key: wanted, stop }
  const isOpen = () => open !== undefined && keyOf(open) === wanted
  current.api
    .follow(
      `${at(c)}/listen`,
      (message) => {
        if (isOpen() && open) append(entryOfMessage(open, message as unknown as Message))
      },
      // Once live (again), what came since the history was read is read again. Its failures are not
      // said: the queue's feed tells when the conversation is no longer the agent's to see.
      (live) => {
        if (live && isOpen()) void quietly(() => openConversation(c))
      },
      AbortSignal.any([current.feeds.signal, stop.signal]),
    )
    .catch((error: unknown) => signOut(error))
}

function renderConversation(): void {
  followOpen()
  const c = open
  ui.placeholder.hidden = c !== undefined
  ui.conversation.hidden = c === undefined
  if (!c || !session) return
  const { me } = session
  const mayAct = holds(me, c)
  ui.title.textContent = conversationTitle(c)
  const handler =
    c.handledBy === 'agent' ? `held by ${c.agentId === me.id ? 'you' : (session.agents.get(c.agentId ?? '')?.name ?? 'another agent')}` : c.handledBy
  ui.meta.textContent = `User ${c.ownerId} · ${handler} · conversation ${c.id}`
  ui.claim.hidden = c.handledBy !== 'waiting'
  for (const control of [ui.release, ui.transfer, ui.transferTo, ui.close]) control.hidden = !mayAct
  ui.transferTo.replaceChildren(
    ...[...session.agents.values()]
      .filter((a) => a.id !== c.agentId)
      .map((a) => {
        const option = document.createElement('option')
        option.value = a.id
        option.textContent = a.name
        return option
      }),
  )
  ui.transfer.disabled = ui.transferTo.options.length === 0
  ui.replyText.disabled = !mayAct
  ui.send.disabled = !mayAct
  ui.replyText.placeholder = mayAct ? 'Reply to the user (Enter sends, Shift+Enter: new line)' : 'Claim the conversation to reply'
}

function entryOfMessage(c: Conversation, message: Message) {
  if (!session) throw new Error('not signed in')
  const { name, side } = authorOf(message, c, session.me, session.agents)
  return { id: `m:${message.id}`, kind: side, author: name, createdAt: message.createdAt, body: renderPayload(message.payload) }
}
function entryOfNote(note: Note) {
  const author = note.agentId === session?.me.id ? `${session.me.name} (you)` : (session?.agents.get(note.agentId)?.name ?? 'Agent')
  const body = document.createElement('div')
  body.className = 'text'
  body.textContent = note.text
  return { id: `n:${note.id}`, kind: 'note' as const, author, createdAt: note.createdAt, body }
}

type Entry = Parameters<typeof renderEntry>[0]

/**
 * The entries shown live while a history is being read, with their conversation's key: that read may
 * have been answered before they were written, and must not take them off the timeline.
 */
let shownSinceRead: { key: string; entry: Entry }[] = []
let readingHistory = false

/** Adds an entry at the end of the open conversation's timeline, once, scrolled into view. */
function append(entry: Entry): void {
  if (open && readingHistory) shownSinceRead.push({ key: keyOf(open), entry })
  if (ui.timeline.querySelector(`[data-entry-id="${CSS.escape(entry.id)}"]`)) return
  ui.timeline.append(renderEntry(entry))
  ui.timeline.scrollTop = ui.timeline.scrollHeight
}

/** Opens a conversation: its state, its history with its notes among the messages; its unread count is cleared. */
async function openConversation(ref: { botId: string; id: string }): Promise<void> {
  const ticket = ++opening
  shownSinceRead = []
  readingHistory = true
  const [{ conversation }, { messages }, { notes }] = await Promise.all([
    api().call<{ conversation: Conversation }>('GET', at(ref)),
    api().call<{ messages: Message[] }>('GET', `${at(ref)}/messages`),
    api().call<{ notes: Note[] }>('GET', `${at(ref)}/notes`),
  ]).catch((error: unknown) => {
    if (ticket === opening) readingHistory = false
    throw error
  })
  if (ticket !== opening) return
  open = conversation
  showTyping(false)
  const read = [...messages.map((m) => entryOfMessage(conversation, m)), ...notes.map(entryOfNote)]
  const ids = new Set(read.map(({ id }) => id))
  const since = shownSinceRead.filter(({ key, entry }) => key === keyOf(conversation) && !ids.has(entry.id) && ids.add(entry.id)).map(({ entry }) => entry)
  shownSinceRead = []
  readingHistory = false
  const entries = [...read, ...since].sort((a, b) => a.createdAt.localeCompare(b.createdAt))
  ui.timeline.replaceChildren(...entries.map(renderEntry))
  ui.timeline.scrollTop = ui.timeline.scrollHeight
  unread.clear(keyOf(conversation))
  renderConversation()
  renderLists()
}

/** The open conversation is no longer the agent's to see (released, transferred, taken by another). */
function closeView(notice: string): void {
  open = undefined
  opening++
  notify(notice)
  renderConversation()
  renderLists()
}

async function afterChange(conversation: Conversation): Promise<void> {
  open = conversation
  renderConversation()
  await refreshLists()
}

function showTyping(typing: boolean): void {
  clearTimeout(userTyping)
  ui.typing.textContent = typing && open ? `${open.ownerId} is typing…` : ''
}

/** What the queue's feed says: who handles a conversation changed. */
function onQueueUpdate(update: Record<string, unknown>): void {
  void quietly(async () => {
    await refreshLists()
    if (!open || keyOf(open) !== keyOf(update as { botId: string; conversationId: string })) return
    try {
      await openConversation(open)
    } catch (error) {
      // Another agent took it, or it went back to the bot: the agent no longer sees it.
      if (error instanceof ApiError && error.status === 404) closeView(`${conversationTitle(open)} is no longer yours to see`)
      else throw error
    }
  })
}

/** What the feed of the agent's conversations says: a message, or the user typing. */
function onConversationUpdate(update: Record<string, unknown>): void {
  if (!session) return
  const key = keyOf(update as { botId: string; conversationId: string })
  const isOpen = open !== undefined && keyOf(open) === key
  if (update.type === 'message_created') {
    const message = update.message as Message
    const fromMe = message.userId === agentUserId(session.me.id)
    if (isOpen && open) append(entryOfMessage(open, message))
    if (!fromMe && (!isOpen || document.hidden)) unread.add(key)
    if (isOpen && !fromMe) showTyping(false)
    renderLists()
  } else if (isOpen && open && update.userId === open.ownerId) {
    showTyping(update.type === 'typing_started')
    if (update.type === 'typing_started') userTyping = setTimeout(() => showTyping(false), Number(update.timeout) || typingTimeoutMs)
  }
}

function setStatus(): void {
  if (!session) return
  ui.status.textContent = session.live.queue && session.live.mine ? 'Live' : 'Reconnecting…'
}

/** Opens one feed; each time it is live again, what it may have missed is read again. */
function follow(path: string, which: 'queue' | 'mine', onMessage: (update: Record<string, unknown>) => void, current: Session): void {
  current.api
    .follow(
      path,
      onMessage,
      (live, error) => {
        current.live[which] = live
        setStatus()
        if (live) void quietly(() => (open ? Promise.all([refreshLists(), openConversation(open)]) : refreshLists()))
        else if (error) showError(error)
      },
      current.feeds.signal,
    )
    .catch((error: unknown) => signOut(error))
}

async function signIn(key: string): Promise<void> {
  const candidate = new AgentApi(new URL('./', import.meta.url).href, key)
  const [{ agent: me }, { agents }] = await Promise.all([candidate.call<{ agent: Agent }>('GET', 'me'), candidate.call<{ agents: Agent[] }>('GET', 'agents')])
  sessionStorage.setItem(storageKey, key)
  session = { api: candidate, me, agents: new Map(agents.map((a) => [a.id, a])), feeds: new AbortController(), live: { queue: false, mine: false } }
  ui.who.textContent = `${me.name}${me.role === 'supervisor' ? ' (supervisor)' : ''}`
  ui.signIn.hidden = true
  ui.desk.hidden = false
  ui.signOut.hidden = false
  setStatus()
  renderConversation()
  await refreshLists()
  follow('queue/listen', 'queue', onQueueUpdate, session)
  follow('conversations/listen', 'mine', onConversationUpdate, session)
}

function signOut(error?: unknown): void {
  session?.feeds.abort()
  session = undefined
  sessionStorage.removeItem(storageKey)
  queue = []
  mine = []
  open = undefined
  opening++
  followOpen()
  ui.desk.hidden = true
  ui.signOut.hidden = true
  ui.signIn.hidden = false
  ui.who.textContent = ''
  ui.status.textContent = 'Signed out'
  notify('')
  document.title = baseTitle
  if (error) showError(error)
  else clearError()
  ui.key.focus()
}

ui.signIn.addEventListener('submit', (event) => {
  event.preventDefault()
  const key = ui.key.value.trim()
  ui.key.value = ''
  void signIn(key).then(clearError, showError)
})
ui.signOut.addEventListener('click', () => signOut())
ui.dismiss.addEventListener('click', clearError)

for (const list of [ui.queue, ui.mine]) {
  list.addEventListener('click', (event) => {
    const button = (event.target as HTMLElement).closest<HTMLButtonElement>('button[data-conversation]')
    const [botId = '', ...rest] = (button?.dataset.conversation ?? '').split('/')
    if (!button) return
    notify('')
    void act(() => openConversation({ botId, id: rest.join('/') }))
  })
}

ui.claim.addEventListener('click', () =>
  act(async () => {
    if (!open) return
    const { conversation } = await api().call<{ conversation: Conversation }>('POST', `${at(open)}/claim`, {})
    await afterChange(conversation)
  }),
)
ui.release.addEventListener('click', () =>
  act(async () => {
    if (!open) return
    const released = open
    await api().call('POST', `${at(released)}/release`, {})
    closeView(`${conversationTitle(released)} went back to the bot`)
    await refreshLists()
  }),
)
ui.transfer.addEventListener('click', () =>
  act(async () => {
    if (!open || !session) return
    const to = session.agents.get(ui.transferTo.value)
    if (!to) return
    const moved = open
    const { conversation } = await api().call<{ conversation: Conversation }>('POST', `${at(moved)}/transfer`, { agentId: to.id })
    // A supervisor still sees it; an agent no longer does.
    if (session.me.role === 'supervisor') await afterChange(conversation)
    else {
      closeView(`${conversationTitle(moved)} was transferred to ${to.name}`)
      await refreshLists()
    }
  }),
)
ui.close.addEventListener('click', () =>
  act(async () => {
    if (!open) return
    const { conversation } = await api().call<{ conversation: Conversation }>('POST', `${at(open)}/close`, {})
    await afterChange(conversation)
  }),
)

/** The user is told the agent types while it does (again every few seconds), and that it stopped once the box is empty. */
function typed(): void {
  const conversation = open
  if (!conversation || !session || !holds(session.me, conversation)) return
  const now = Date.now()
  const typing = ui.replyText.value.trim() !== ''
  if (typing && now - typingSentAt > typingEveryMs) {
    typingSentAt = now
    void act(() => api().call('POST', `${at(conversation)}/typing`, { timeout: typingTimeoutMs }))
  } else if (!typing) stopTyping(conversation)
}

function stopTyping(conversation: Conversation): void {
  if (typingSentAt === 0) return
  typingSentAt = 0
  void act(() => api().call('DELETE', `${at(conversation)}/typing`))
}
ui.replyText.addEventListener('input', typed)
ui.replyText.addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
    event.preventDefault()
    ui.reply.requestSubmit()
  }
})
ui.reply.addEventListener('submit', (event) => {
  event.preventDefault()
  const text = ui.replyText.value.trim()
  if (!open || text === '') return
  const conversation = open
  void act(async () => {
    const { message } = await api().call<{ message: Message }>('POST', `${at(conversation)}/messages`, { payload: { type: 'text', text } })
    ui.replyText.value = ''
    stopTyping(conversation)
    if (open && keyOf(open) === keyOf(conversation)) append(entryOfMessage(conversation, message))
  })
})
ui.note.addEventListener('submit', (event) => {
  event.preventDefault()
  const text = ui.noteText.value
  if (!open || text.trim() === '') return
  const conversation = open
  void act(async () => {
    const { note } = await api().call<{ note: Note }>('POST', `${at(conversation)}/notes`, { text })
    ui.noteText.value = ''
    if (open && keyOf(open) === keyOf(conversation)) append(entryOfNote(note))
  })
})

// Back on the page, the open conversation's messages have been seen.
document.addEventListener('visibilitychange', () => {
  if (document.hidden || !open) return
  unread.clear(keyOf(open))
  renderLists()
})

const kept = sessionStorage.getItem(storageKey)
if (kept) void signIn(kept).then(clearError, (error: unknown) => signOut(error))
else signOut()
