import { AddParticipantDocument, GetParticipantDocument, ListParticipantsDocument, RemoveParticipantDocument } from '../../__generated__/chat-operations.ts'
import { compact, nodes, toMeta } from '../bodies.ts'
import { route } from '../route.ts'
import { Empty, Meta, User } from './resources.ts'
import { z } from 'zod'

export const participantRoutes = [
  route({
    operation: 'addParticipant',
    summary: 'Adds a user to a conversation.',
    returns: z.object({ participant: User }),
    method: 'POST',
    path: '/conversations/{conversationId}/participants',
    document: AddParticipantDocument,
    response: (d) => ({ participant: compact(d.addParticipant.participant) }),
  }),
  route({
    operation: 'listParticipants',
    summary: 'The participants of a conversation, a page at a time.',
    query: { nextToken: 'after' },
    returns: z.object({ participants: z.array(User), meta: Meta }),
    method: 'GET',
    path: '/conversations/{conversationId}/participants',
    document: ListParticipantsDocument,
    response: (d) => ({
      participants: nodes(d.conversation.participants),
      meta: toMeta(d.conversation.participants),
    }),
  }),
  route({
    operation: 'getParticipant',
    summary: 'A participant of a conversation.',
    returns: z.object({ participant: User }),
    method: 'GET',
    path: '/conversations/{conversationId}/participants/{userId}',
    document: GetParticipantDocument,
    response: (d) => ({ participant: compact(d.conversation.participant) }),
  }),
  route({
    operation: 'removeParticipant',
    summary: 'Removes a user from a conversation.',
    returns: Empty,
    method: 'DELETE',
    path: '/conversations/{conversationId}/participants/{userId}',
    document: RemoveParticipantDocument,
    response: () => ({}),
  }),
]
