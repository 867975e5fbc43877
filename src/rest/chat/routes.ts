import { conversationRoutes } from './conversations.ts'
import { eventRoutes } from './events.ts'
import { helloRoutes } from './hello.ts'
import { listenRoutes } from './listen.ts'
import { messageRoutes } from './messages.ts'
import { participantRoutes } from './participants.ts'
import { userRoutes } from './users.ts'
import { webchatRoutes } from './webchat.ts'

/** Every chat operation, relative to /{webhookId}. */
export const chatRoutes = [
  ...helloRoutes,
  ...userRoutes,
  ...conversationRoutes,
  ...participantRoutes,
  ...messageRoutes,
  ...eventRoutes,
  ...listenRoutes,
  ...webchatRoutes,
]
