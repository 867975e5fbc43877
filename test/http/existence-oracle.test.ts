import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { signUserKey } from '../../src/auth/user-key.ts'
import { ENCRYPTION_KEY } from '../helpers/app.ts'
import { type Listening, startListening } from '../helpers/listening.ts'

// Issue 49 L5: a stranger told "403 Forbidden" for an id that exists and "404" for one that does not
// learns which conversations, messages, events and users exist. What is not the caller's to see is
// now answered exactly as what does not exist.

let s: Listening
const keys: Record<string, string> = {}
let ids: { message: string; event: string }

const call = async (user: string, method: string, path: string, body?: unknown): Promise<Record<string, any>> => {
  const response = await fetch(`${s.apiUrl}${path}`, {
    method,
    headers: { 'x-user-key': keys[user]!, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const { id: _, ...answer } = await response.json()
  return { status: response.status, ...answer }
}

beforeAll(async () => {
  s = await startListening({ handlers: {} })
  for (const user of ['alice', 'mallory']) {
    keys[user] = await signUserKey(user, ENCRYPTION_KEY)
    await call(user, 'POST', '/users/get-or-create', {})
  }
  await call('alice', 'POST', '/conversations', { id: 'secret-plans' })
  const { message } = await call('alice', 'POST', '/messages', { conversationId: 'secret-plans', payload: { type: 'text', text: 'hush' } })
  const { event } = await call('alice', 'POST', '/events', { conversationId: 'secret-plans', payload: { kind: 'x' } })
  ids = { message: message.id, event: event.id }
})
afterAll(() => s.close())

type Ids = { conversation: string; message: string; event: string; user: string }
type Kind = keyof Ids

describe('what a stranger cannot see is answered as what does not exist', () => {
  const cases: [string, Kind, (id: Ids) => [string, string, unknown?]][] = [
    ['getConversation', 'conversation', (id) => ['GET', `/conversations/${id.conversation}`]],
    ['listMessages', 'conversation', (id) => ['GET', `/conversations/${id.conversation}/messages`]],
    ['listParticipants', 'conversation', (id) => ['GET', `/conversations/${id.conversation}/participants`]],
    ['listenConversation', 'conversation', (id) => ['GET', `/conversations/${id.conversation}/listen`]],
    ['createMessage', 'conversation', (id) => ['POST', '/messages', { conversationId: id.conversation, payload: { type: 'text', text: 'in?' } }]],
    ['getMessage', 'message', (id) => ['GET', `/messages/${id.message}`]],
    ['deleteMessage', 'message', (id) => ['DELETE', `/messages/${id.message}`]],
    ['getEvent', 'event', (id) => ['GET', `/events/${id.event}`]],
    ['getParticipant', 'conversation', (id) => ['GET', `/conversations/${id.conversation}/participants/${id.user}`]],
  ]

  it.each(cases)('%s: the same status, type and words for an id of another user and for one that does not exist', async (_operation, kind, request) => {
    const real: Ids = { conversation: 'secret-plans', message: ids.message, event: ids.event, user: 'alice' }
    const made: Ids = { conversation: 'no-such-plans', message: '01JZZZZZZZZZZZZZZZZZZZZZZZ', event: '01JZZZZZZZZZZZZZZZZZZZZZZY', user: 'no-such-user' }
    const theirs = await call('mallory', ...request(real))
    const nothing = await call('mallory', ...request(made))
    expect(theirs).toMatchObject({ status: 404, code: 404, type: 'ResourceNotFound' })
    // The words differ only by the id asked for.
    expect(theirs.message).toContain(`"${real[kind]}"`)
    expect(theirs).toEqual(JSON.parse(JSON.stringify(nothing).replaceAll(made[kind], real[kind])))
  })
})
