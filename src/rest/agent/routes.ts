import { z } from 'zod'
import {
  AddNoteDocument,
  ClaimConversationDocument,
  CloseConversationDocument,
  GetConversationDocument,
  GetMeDocument,
  ListAgentsDocument,
  ListenMyConversationsDocument,
  ListenQueueDocument,
  ListHistoryDocument,
  ListMyConversationsDocument,
  ListNotesDocument,
  ListQueueDocument,
  ReleaseConversationDocument,
  ReplyToConversationDocument,
  StartTypingDocument,
  StopTypingDocument,
  TransferConversationDocument,
} from '../../__generated__/agent-operations.ts'
import { agentInputs } from '../../contracts/agent-inputs.ts'
import { jsonVerbRoutes, jsonVerbVariables } from '../json-verb-route.ts'
import { stream } from '../route.ts'
import { AgentColleague, AgentConversation, AgentMessage, AgentNote, MyConversationsUpdate, QueueUpdate } from './resources.ts'

/** An operation of the agent API (every one but the live feeds). */
const agentRoute = jsonVerbRoutes(agentInputs as Omit<typeof agentInputs, 'listenQueue' | 'listenMyConversations'>)

const conversation = z.object({ conversation: AgentConversation })
const conversations = z.object({ conversations: z.array(AgentConversation) })
const at = '/bots/{botId}/conversations/{id}'

/** Every agent API operation, relative to /v1/agent. */
export const agentRoutes = [
  agentRoute('getMe', 'GET', '/me', GetMeDocument, 'The agent the key belongs to.', z.object({ agent: AgentColleague })),
  agentRoute(
    'listAgents',
    'GET',
    '/agents',
    ListAgentsDocument,
    "The workspace's agents, oldest first: whom a conversation may be transferred to.",
    z.object({ agents: z.array(AgentColleague) }),
  ),
  agentRoute('listQueue', 'GET', '/queue', ListQueueDocument, "The workspace's conversations waiting for an agent, the longest waiting first.", conversations),
  agentRoute(
    'listMyConversations',
    'GET',
    '/conversations',
    ListMyConversationsDocument,
    'The conversations the agent holds (a supervisor: every agent’s).',
    conversations,
  ),
  agentRoute('getConversation', 'GET', at, GetConversationDocument, 'A conversation the agent may see.', conversation),
  agentRoute(
    'listHistory',
    'GET',
    `${at}/messages`,
    ListHistoryDocument,
    "The conversation's messages, newest first.",
    z.object({ messages: z.array(AgentMessage) }),
  ),
  agentRoute(
    'claimConversation',
    'POST',
    `${at}/claim`,
    ClaimConversationDocument,
    'Takes a waiting conversation; its user sees the agent join.',
    conversation,
  ),
  agentRoute(
    'replyToConversation',
    'POST',
    `${at}/messages`,
    ReplyToConversationDocument,
    'Posts in a conversation the agent holds, as the agent.',
    z.object({ message: AgentMessage }),
  ),
  agentRoute('startTyping', 'POST', `${at}/typing`, StartTypingDocument, 'Tells the user the agent is typing (timeout: ms, 5000 by default).', z.object({})),
  agentRoute('stopTyping', 'DELETE', `${at}/typing`, StopTypingDocument, 'Tells the user the agent stopped typing.', z.object({})),
  agentRoute('addNote', 'POST', `${at}/notes`, AddNoteDocument, 'A note for agents only: the user and the bot never see it.', z.object({ note: AgentNote })),
  agentRoute('listNotes', 'GET', `${at}/notes`, ListNotesDocument, "The conversation's notes, oldest first.", z.object({ notes: z.array(AgentNote) })),
  agentRoute(
    'transferConversation',
    'POST',
    `${at}/transfer`,
    TransferConversationDocument,
    'Hands the conversation to another agent of the workspace.',
    conversation,
  ),
  agentRoute(
    'releaseConversation',
    'POST',
    `${at}/release`,
    ReleaseConversationDocument,
    'Gives the conversation back to the bot (it is told hitl:hitlStopped).',
    conversation,
  ),
  agentRoute(
    'closeConversation',
    'POST',
    `${at}/close`,
    CloseConversationDocument,
    'Closes the handoff; the bot answers again (it is told hitl:hitlStopped).',
    conversation,
  ),
  stream({
    operation: 'listenQueue',
    summary: "The live feed of the workspace's queue, as Server-Sent Events: one message per change of who handles a conversation.",
    emits: QueueUpdate,
    method: 'GET',
    path: '/queue/listen',
    document: ListenQueueDocument,
    input: agentInputs.listenQueue,
    variables: jsonVerbVariables,
    event: (d) => d.listenQueue,
  }),
  stream({
    operation: 'listenMyConversations',
    summary: 'The live feed of the conversations the agent holds (a supervisor: every agent’s): their new messages and who types.',
    emits: MyConversationsUpdate,
    method: 'GET',
    path: '/conversations/listen',
    document: ListenMyConversationsDocument,
    input: agentInputs.listenMyConversations,
    variables: jsonVerbVariables,
    event: (d) => d.listenMyConversations,
  }),
]
