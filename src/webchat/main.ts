import { ChatClient, ChatError } from './client.ts'
import {
  type WebChatMessageFragment,
  WebChatConversationDocument as ConversationView,
  WebChatCreateUserDocument as CreateUser,
  WebChatGetOrCreateConversationDocument as GetOrCreateConversation,
  WebChatSendTextDocument as SendText,
  WebChatSignalsDocument as ConversationSignals,
} from './__generated__/graphql.ts'
import { renderMessage } from './render.ts'

/*
 * The web chat served at /{webhookId}/: it keeps its user key and conversation id in localStorage,
 * shows the conversation live through the GraphQL subscription, and sends text.
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
if (!list || !form || !input || !status) throw new Error('the web chat page is missing its elements')

let userId = ''
let conversationId = ''

function show(message: WebChatMessageFragment): void {
  if (list?.querySelector(`[data-message-id="${CSS.escape(message.messageId)}"]`)) return
  list?.appendChild(renderMessage(message, message.userId === userId, send))
  list?.lastElementChild?.scrollIntoView({ block: 'end' })
}

async function send(text: string): Promise<void> {
  const { createMessage } = await client.request(SendText, { conversationId, text })
  show(createMessage.message)
}

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
}

/** Keeps the live subscription open, catching up on what was missed each time it (re)opens. */
async function listen(opened: () => void): Promise<void> {
  for (;;) {
    const controller = new AbortController()
    try {
      await client.subscribe(
        ConversationSignals,
        { id: conversationId },
        {
          signal: controller.signal,
          onOpen: () => {
            catchUp().then(opened, (error: unknown) => {
              status!.textContent = `Could not load the conversation: ${error instanceof Error ? error.message : String(error)}`
            })
          },
          onData: ({ conversationSignals: signal }) => {
            if (signal.__typename === 'MessageCreatedSignal') show(signal.message)
            if (signal.__typename === 'MessageDeletedSignal') {
              list?.querySelector(`[data-message-id="${CSS.escape(signal.messageId)}"]`)?.remove()
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
    send(text).catch((error: unknown) => {
      status!.textContent = `Not sent: ${error instanceof Error ? error.message : String(error)}`
    })
  })
  input!.disabled = false
  input!.focus()
}

start().catch((error: unknown) => {
  status.textContent = `Could not connect: ${error instanceof Error ? error.message : String(error)}`
})
