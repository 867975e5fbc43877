// The official Botpress web chat (@botpress/webchat) put together from its parts, as its guide to
// WebchatProvider shows: the same chat window as main.jsx's <Webchat>, beside a list of the custom
// events the bot sends (the `customEvent`s of the conversation) and a button that sends one. What a
// page does whose bot talks to it in custom events (chat:sendEvent of a Botpress SDK bot).
import { Chat, useActiveConversation, useConversations, useUser, WebchatProvider } from '@botpress/webchat'
import { useEffect, useState } from 'react'
import { createRoot } from 'react-dom/client'

const { apiUrl, clientId } = window.CONFAB
const storageKey = `bp-webchat-${clientId}`
const configuration = { botName: 'Confab SDK bot' }

function ChatWindow() {
  const conversation = useActiveConversation()
  const { openConversation, listConversations } = useConversations()
  const { userCredentials } = useUser()
  const { status } = conversation
  return (
    <Chat
      configuration={configuration}
      user={userCredentials}
      isLoading={status === 'connecting'}
      isTyping={conversation.isTyping}
      connected={status === 'connected' ? true : status === 'disconnected' ? false : undefined}
      messages={conversation.messages}
      participants={conversation.participants}
      sendMessage={conversation.sendMessage}
      uploadFile={conversation.uploadFile}
      addMessageFeedback={conversation.saveMessageFeedback}
      listConversations={listConversations}
      restartConversation={openConversation}
      error={conversation.error}
      clientId={clientId}
      disableSendButton={conversation.isAwaitingResponse}
      conversationId={conversation.conversationId}
      storageKey={storageKey}
      style={{ width: '400px', height: '600px' }}
    />
  )
}

function CustomEvents() {
  const { on, sendEvent, status } = useActiveConversation()
  const [events, setEvents] = useState([])
  useEffect(() => on('customEvent', (event) => setEvents((seen) => [...seen, event])), [on])
  return (
    <section id="custom-events">
      <button type="button" disabled={status !== 'connected'} onClick={() => sendEvent({ ping: 'from the page' })}>
        Send a custom event
      </button>
      <ol>
        {events.map((event, i) => (
          <li key={i}>{JSON.stringify(event)}</li>
        ))}
      </ol>
    </section>
  )
}

createRoot(document.getElementById('root')).render(
  <WebchatProvider clientId={clientId} apiUrl={apiUrl} storageKey={storageKey}>
    <CustomEvents />
    <ChatWindow />
  </WebchatProvider>,
)
