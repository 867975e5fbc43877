import { ChatClient, ChatError } from './client.ts'
import {
  type WebChatMessageFragment,
  WebChatConversationDocument as ConversationView,
  WebChatCreateUserDocument as CreateUser,
  WebChatGetOrCreateConversationDocument as GetOrCreateConversation,
  WebChatParticipantsDocument as Participants,
  WebChatSendTextDocument as SendText,
  WebChatSignalsDocument as ConversationSignals,
} from './__generated__/graphql.ts'
import { avatar, displayName, renderMessage, renderNotice, renderStreamingMessage } from './render.ts'

/*
 * The web chat served at /{webhookId}/: it keeps its user key and conversation id in localStorage,
 * shows the conversation live through the GraphQL subscription (messages, their updates, who is
 * typing, a person joining or leaving), and sends text.
 */

// Every URL relative to this script's, {base}/{webhookId}/webchat.js: behind a proxy that serves
// Confab under a path (PUBLIC_URL=https://example.com/confab), the page works unchanged.
const webhookId = decodeURIComponent(new URL(import.meta.url).pathname.split('/').at(-2) ?? '')
const storageKey = (name: string) => `confab:${webhookId}:${name}`
const client = new ChatClient(new URL('graphql', import.meta.url).href, localStorage.getItem(storageKey('key')) ?? undefined)

const list = document.querySelector<HTMLOListElement>('#messages')
const form = document.querySelector<HTMLFormElement>('#composer')
const input = document.querySelector<HTMLInputElement>('#text')
const status = document.querySelector<HTMLElement>('#status')
const empty = document.querySelector<HTMLElement>('#empty')
const typing = document.querySelector<HTMLElement>('#typing')
const title = document.querySelector<HTMLElement>('#title')
if (!list || !form || !input || !status || !empty || !typing || !title) throw new Error('the web chat page is missing its elements')

let userId = ''
let conversationId = ''
/** The authors seen so far, by user id: who "is typing" names. */
const authors = new Map<string, WebChatMessageFragment['author']>()
/** Learns the participants' names (and the bot's, for the header) without waiting for their messages; returns them with when each joined. */
async function learnParticipants() {
  const { conversation } = await client.request(Participants, { id: conversationId })
  for (const { node } of conversation.participants.edges) {
    if (!authors.has(node.userId)) authors.set(node.userId, node)
    introduce(node)
  }
  return conversation.participants.edges
}

/**
 * The people (neither the bot nor the user) whose joining is shown: the live signal and the first
 * read may both tell of the same join, which is shown once.
 */
const announced = new Set<string>()

/** Who is typing now, each until its timeout. */
const typists = new Map<string, ReturnType<typeof setTimeout>>()

const messageElement = (messageId: string) => list?.querySelector(`[data-message-id="${CSS.escape(messageId)}"]`)

function showTypists(): void {
  const names = [...typists.keys()].map((id) => {
    const author = authors.get(id)
    return author ? displayName(author) : 'Someone'
  })
  typing!.textContent = names.length === 0 ? '' : `${names.join(', ')} ${names.length === 1 ? 'is' : 'are'} typing…`
  typing!.hidden = names.length === 0
}

function stoppedTyping(id: string): void {
  clearTimeout(typists.get(id))
  if (typists.delete(id)) showTypists()
}

function startedTyping(id: string, timeout: number): void {
  if (id === userId) return
  clearTimeout(typists.get(id))
  typists.set(
    id,
    setTimeout(() => stoppedTyping(id), timeout),
  )
  showTypists()
  if (!authors.has(id)) learnParticipants().then(showTypists, () => {})
}

/** The header names the bot, with its avatar, once one has spoken. */
function introduce(author: WebChatMessageFragment['author']): void {
  if (!author.isBot || title!.dataset.bot) return
  title!.dataset.bot = 'shown'
  title!.replaceChildren(avatar(author), document.createTextNode(displayName(author)))
}

function show(message: WebChatMessageFragment): void {
  authors.set(message.userId, message.author)
  introduce(message.author)
  stoppedTyping(message.userId)
  const mine = message.userId === userId
  const existing = messageElement(message.messageId)
  if (existing) {
    existing.replaceWith(renderMessage(message, mine, say))
    return
  }
  empty!.hidden = true
  list?.appendChild(renderMessage(message, mine, say))
  list?.lastElementChild?.scrollIntoView({ block: 'end' })
}

/**
 * Says in the conversation that someone joined or left: live, at the end, now; read back (`at`,
 * the server's time), before the first line that came later. A live one is not placed by time: the
 * browser's clock is not the server's.
 */
function notice(text: string, at?: string): void {
  empty!.hidden = true
  const row = renderNotice(text, at === undefined ? new Date() : new Date(at))
  const later = at === undefined ? undefined : [...list!.children].find((line) => Date.parse(line.querySelector('time')?.dateTime ?? '') > Date.parse(at))
  list!.insertBefore(row, later ?? null)
  if (!later) row.scrollIntoView({ block: 'end' })
}

/** A person joined (an agent taking the conversation over): the user is told who, by name, once; `at` when read back. */
function joined(participant: WebChatMessageFragment['author'] & { userId: string }, at?: string): void {
  authors.set(participant.userId, participant)
  if (participant.isBot || participant.userId === userId || announced.has(participant.userId)) return
  announced.add(participant.userId)
  notice(`${displayName(participant)} joined`, at)
}

/** A person left (the agent gave the conversation back): named as it was known. */
function left(participantId: string): void {
  stoppedTyping(participantId)
  announced.delete(participantId)
  const author = authors.get(participantId)
  if (author?.isBot || participantId === userId) return
  notice(`${author ? displayName(author) : 'Someone'} left`)
}

/** The messages the bot is writing (message streams), by stream id: where their deltas go. */
const streaming = new Map<string, { row: HTMLElement; text: HTMLElement; sequence: number }>()

/** A delta of a stream: its text appended to the stream's growing message (made by its first delta). */
function streamed(signal: { streamId: string; userId: string; createdAt: string; sequence: number; delta: string }): void {
  let stream = streaming.get(signal.streamId)
  if (!stream) {
    const author = authors.get(signal.userId) ?? { isBot: true, name: null, pictureUrl: null }
    stream = { ...renderStreamingMessage(author, signal.createdAt), sequence: -Infinity }
    stream.row.dataset.streamId = signal.streamId
    streaming.set(signal.streamId, stream)
    empty!.hidden = true
    list?.appendChild(stream.row)
    if (!authors.has(signal.userId)) learnParticipants().catch(() => {})
  }
  // In order, each once (the server orders a stream's deltas; a repeat is ignored).
  if (signal.sequence <= stream.sequence) return
  stream.sequence = signal.sequence
  stream.text.textContent += signal.delta
  stoppedTyping(signal.userId)
  stream.row.scrollIntoView({ block: 'end' })
}

/**
 * A stream ended: completed, the growing message is named as the final one (`messageId`), which
 * takes its place as it comes (message_created, right after); aborted, the growing one goes.
 */
function streamEnded(streamId: string, messageId?: string): void {
  const stream = streaming.get(streamId)
  streaming.delete(streamId)
  if (!stream) return
  if (messageId === undefined || messageElement(messageId)) {
    stream.row.remove()
    empty!.hidden = list!.childElementCount > 0
    return
  }
  stream.row.dataset.messageId = messageId
}

/** Sends text as the user; a choice's label goes with its value, kept in the payload (`value`). */
async function send(text: string, value?: string): Promise<void> {
  const { createMessage } = await client.request(SendText, { conversationId, text, extra: value === undefined ? undefined : { value } })
  show(createMessage.message)
}

function reportSendError(error: unknown): void {
  status!.textContent = `Not sent: ${error instanceof Error ? error.message : String(error)}`
}

/** What a choice, a dropdown or a card's button does. */
const say = (label: string, value: string) => void send(label, value).catch(reportSendError)

async function signIn(): Promise<void> {
  if (client.key) return
  const { createUser } = await client.request(CreateUser, {})
  client.key = createUser.key
  localStorage.setItem(storageKey('key'), createUser.key)
}

async function openConversation(): Promise<void> {
  const stored = localStorage.getItem(storageKey('conversation'))
  const id = stored ?? `webchat-${crypto.randomUUID()}`
  try {
    await client.request(GetOrCreateConversation, { id })
  } catch (error) {
    // A stored conversation that was deleted or left: start a new one.
    if (!(error instanceof ChatError) || !stored) throw error
    localStorage.removeItem(storageKey('conversation'))
    return openConversation()
  }
  conversationId = id
  localStorage.setItem(storageKey('conversation'), id)
}

async function catchUp(): Promise<void> {
  const view = await client.request(ConversationView, { id: conversationId })
  userId = view.me.userId
  for (const edge of [...view.conversation.messages.edges].reverse()) show(edge.node)
  empty!.hidden = list!.childElementCount > 0
  // Notices are not stored: each person in the conversation now is shown joining, when they did.
  for (const { node, joinedAt } of await learnParticipants()) joined(node, joinedAt)
}

/**
 * Keeps the live subscription open. The first time it reads the conversation; each reconnect resumes
 * from the last signal heard (the server replays what was missed), and reads it again only when told
 * to resync.
 */
async function listen(opened: () => void): Promise<void> {
  let since: string | undefined
  const reload = () =>
    catchUp().then(opened, (error: unknown) => {
      status!.textContent = `Could not load the conversation: ${error instanceof Error ? error.message : String(error)}`
    })
  for (;;) {
    const controller = new AbortController()
    try {
      await client.subscribe(
        ConversationSignals,
        { id: conversationId, since },
        {
          signal: controller.signal,
          onOpen: () => (since === undefined ? reload() : opened()),
          onData: ({ conversationSignals: signal }) => {
            if ('signalId' in signal && signal.signalId) since = signal.signalId
            switch (signal.__typename) {
              case 'ResyncSignal':
                return void reload()
              case 'MessageCreatedSignal':
              case 'MessageUpdatedSignal':
                return show(signal.message)
              case 'MessageDeletedSignal':
                messageElement(signal.messageId)?.remove()
                empty!.hidden = list!.childElementCount > 0
                return
              case 'TypingStartedSignal':
                return startedTyping(signal.userId, signal.timeout)
              case 'TypingStoppedSignal':
                return stoppedTyping(signal.userId)
              case 'MessageStreamDeltaSignal':
                return streamed(signal)
              case 'MessageStreamCompleteSignal':
                return streamEnded(signal.streamId, signal.message.messageId)
              case 'MessageStreamAbortSignal':
                return streamEnded(signal.streamId)
              case 'ParticipantAddedSignal':
                return joined(signal.participant)
              case 'ParticipantRemovedSignal':
                return left(signal.participantId)
            }
          },
        },
      )
    } catch {
      // The stream dropped: reconnect after a pause.
    }
    status!.textContent = 'Reconnecting…'
    await new Promise((resolve) => setTimeout(resolve, 2000))
  }
}

async function start(): Promise<void> {
  try {
    await signIn()
    await openConversation()
  } catch (error) {
    if (error instanceof ChatError && error.type === 'Unauthorized') {
      // The stored key no longer opens anything (user deleted, or another server): start afresh.
      localStorage.removeItem(storageKey('key'))
      client.key = undefined
      await signIn()
      await openConversation()
    } else {
      throw error
    }
  }
  await new Promise<void>((opened) => {
    void listen(() => {
      status!.textContent = 'Connected'
      opened()
    })
  })
  form!.addEventListener('submit', (event) => {
    event.preventDefault()
    const text = input!.value.trim()
    if (!text) return
    input!.value = ''
    send(text).catch(reportSendError)
  })
  input!.disabled = false
  input!.focus()
}

start().catch((error: unknown) => {
  status.textContent = `Could not connect: ${error instanceof Error ? error.message : String(error)}`
})
