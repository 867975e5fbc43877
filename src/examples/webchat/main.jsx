// The official Botpress web chat (@botpress/webchat), talking to Confab: `clientId` is the webhook
// id and `apiUrl` the server's origin, so every request goes to `${apiUrl}/${clientId}/…`.
import { Webchat } from '@botpress/webchat'
import { createRoot } from 'react-dom/client'

const { apiUrl, clientId } = window.CONFAB

createRoot(document.getElementById('root')).render(
  <Webchat
    clientId={clientId}
    apiUrl={apiUrl}
    configuration={{ botName: 'Confab echo bot', allowFileUpload: true, feedbackEnabled: true }}
    style={{ width: '400px', height: '600px' }}
  />,
)
