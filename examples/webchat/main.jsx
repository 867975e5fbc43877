// The official Botpress web chat (@botpress/webchat), talking to Confab: `clientId` is the webhook
// id and `apiUrl` Confab's address, so every request goes to `${apiUrl}/${clientId}/…`.
import { Webchat } from '@botpress/webchat'
import { createRoot } from 'react-dom/client'
import { whyConfabIsOutOfReach } from './reach-confab.js'

const { apiUrl, clientId } = window.CONFAB
const root = createRoot(document.getElementById('root'))

const problem = await whyConfabIsOutOfReach(apiUrl, clientId)
root.render(
  problem ? (
    <p role="alert" className="confab-error">{problem}</p>
  ) : (
    <Webchat
      clientId={clientId}
      apiUrl={apiUrl}
      configuration={{ botName: 'Confab echo bot', allowFileUpload: true, feedbackEnabled: true, conversationHistory: true }}
      style={{ width: '400px', height: '600px' }}
    />
  ),
)
