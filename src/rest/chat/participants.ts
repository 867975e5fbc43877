import {
  AddParticipantDocument,
  GetParticipantDocument,
  ListParticipantsDocument,
  RemoveParticipantDocument,
} from '../../__generated__/chat-operations.ts'
import { compact, nodes, stringParam, toMeta } from '../bodies.ts'
import { route } from '../route.ts'

export const participantRoutes = [
  route({
    operation: 'addParticipant',
    method: 'POST',
    path: '/conversations/{conversationId}/participants',
    document: AddParticipantDocument,
    response: (d) => ({ participant: compact(d.addParticipant.participant) }),
  }),
  route({
    operation: 'listParticipants',
    method: 'GET',
    path: '/conversations/{conversationId}/participants',
    document: ListParticipantsDocument,
    variables: ({ params, query }) => ({
      conversationId: params.conversationId ?? '',
      after: stringParam(query, 'nextToken'),
    }),
    response: (d) => ({
      participants: nodes(d.conversation.participants),
      meta: toMeta(d.conversation.participants),
    }),
  }),
  route({
    operation: 'getParticipant',
    method: 'GET',
    path: '/conversations/{conversationId}/participants/{userId}',
    document: GetParticipantDocument,
    response: (d) => ({ participant: compact(d.conversation.participant) }),
  }),
  route({
    operation: 'removeParticipant',
    method: 'DELETE',
    path: '/conversations/{conversationId}/participants/{userId}',
    document: RemoveParticipantDocument,
    response: () => ({}),
  }),
]
