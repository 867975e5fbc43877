import { lexicographicSortSchema } from 'graphql'
import { builder } from './builder.ts'
import './types/user.ts'
import './types/payload.ts'
import './types/conversation.ts'
import './types/message.ts'
import './types/event.ts'
import './types/bot.ts'
import './types/chat-integration.ts'
import './types/bot-api-key.ts'
import './types/bot-log.ts'
import './types/bot-users.ts'
import './types/agent.ts'
import './types/signal.ts'
import './types/webchat.ts'
import './types/file.ts'

export const chatSchema = lexicographicSortSchema(builder.toSchema({ subGraph: 'chat' }))
export const adminSchema = lexicographicSortSchema(builder.toSchema({ subGraph: 'admin' }))
