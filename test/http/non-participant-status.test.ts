import { Client, ForbiddenError, ResourceNotFoundError } from '@botpress/chat'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { signUserKey } from '../../src/auth/user-key.ts'
import { ConfigError, loadConfig, type NonParticipantStatus } from '../../src/config.ts'
import { ENCRYPTION_KEY } from '../helpers/app.ts'
import { type Listening, startListening } from '../helpers/listening.ts'

// NON_PARTICIPANT_STATUS: a caller who is not a participant of a conversation that exists is answered
// 404 ResourceNotFound by default (as a conversation that does not exist: existence-oracle.test.ts), or
// 403 Forbidden, Botpress' answer, when set to 403. A conversation that does not exist is 404 either way.

describe('NON_PARTICIPANT_STATUS', () => {
  it('is 404 unless set to 403, and refuses anything else at start, naming the variable', () => {
    expect(loadConfig({}).nonParticipantStatus).toBe(404)
    expect(loadConfig({ NON_PARTICIPANT_STATUS: '404' }).nonParticipantStatus).toBe(404)
    expect(loadConfig({ NON_PARTICIPANT_STATUS: '403' }).nonParticipantStatus).toBe(403)
    expect(() => loadConfig({ NON_PARTICIPANT_STATUS: 'forbidden' })).toThrow(ConfigError)
    expect(() => loadConfig({ NON_PARTICIPANT_STATUS: '401' })).toThrow(/NON_PARTICIPANT_STATUS must be "404" or "403"/)
  })
})

type Request = [method: string, path: (conversation: string, message: string) => string, body?: (conversation: string) => unknown]
const requests: [string, Request][] = [
  ['getConversation', ['GET', (c) => `/conversations/${c}`]],
  ['listMessages', ['GET', (c) => `/conversations/${c}/messages`]],
  ['listParticipants', ['GET', (c) => `/conversations/${c}/participants`]],
  ['listenConversation', ['GET', (c) => `/conversations/${c}/listen`]],
  ['createMessage', ['POST', () => '/messages', (c) => ({ conversationId: c, payload: { type: 'text', text: 'in?' } })]],
  ['addParticipant', ['POST', (c) => `/conversations/${c}/participants`, () => ({ userId: 'mallory' })]],
  ['getMessage', ['GET', (_c, m) => `/messages/${m}`]],
  ['deleteMessage', ['DELETE', (_c, m) => `/messages/${m}`]],
]

describe.each([404, 403] as NonParticipantStatus[])('NON_PARTICIPANT_STATUS=%s, through the HTTP server', (status) => {
  let s: Listening
  const keys: Record<string, string> = {}
  let messageId: string

  const call = async (user: string, method: string, path: string, body?: unknown) => {
    const response = await fetch(`${s.apiUrl}${path}`, {
      method,
      headers: { 'x-user-key': keys[user]!, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    return { status: response.status, body: await response.json() }
  }

  beforeAll(async () => {
    s = await startListening({ nonParticipantStatus: status })
    for (const user of ['alice', 'mallory']) {
      keys[user] = await signUserKey(user, ENCRYPTION_KEY)
      await call(user, 'POST', '/users/get-or-create', {})
    }
    await call('alice', 'POST', '/conversations', { id: 'plans' })
    messageId = (await call('alice', 'POST', '/messages', { conversationId: 'plans', payload: { type: 'text', text: 'hush' } })).body.message.id
  })
  afterAll(() => s.close())

  it.each(requests)('%s of an existing conversation by a non-participant: %s', async (_operation, [method, path, body]) => {
    const { status: got, body: answer } = await call('mallory', method, path('plans', messageId), body?.('plans'))
    expect(got).toBe(status)
    if (status === 403) expect(answer).toMatchObject({ code: 403, type: 'Forbidden', message: expect.stringContaining('"plans"') })
    else expect(answer).toMatchObject({ code: 404, type: 'ResourceNotFound' })
    expect(answer.id).toEqual(expect.any(String))
  })

  it('a conversation that does not exist is 404 ResourceNotFound whatever the setting', async () => {
    const { status: got, body: answer } = await call('mallory', 'POST', '/messages', { conversationId: 'no-plans', payload: { type: 'text', text: 'in?' } })
    expect(got).toBe(404)
    expect(answer).toMatchObject({ code: 404, type: 'ResourceNotFound' })
  })

  it("the official client raises the setting's error class; a participant is served", async () => {
    const client = new Client({ apiUrl: s.apiUrl })
    const refused = client.listParticipants({ 'x-user-key': keys.mallory!, conversationId: 'plans' })
    await expect(refused).rejects.toThrow(status === 403 ? ForbiddenError : ResourceNotFoundError)
    await expect(client.listParticipants({ 'x-user-key': keys.alice!, conversationId: 'plans' })).resolves.toBeTruthy()
  })

  it("the WebSocket listen transport refuses the upgrade with the setting's answer", async () => {
    const url = `${s.apiUrl.replace(/^http/, 'ws')}/conversations/plans/listen?x-user-key=${encodeURIComponent(keys.mallory!)}`
    const refused = await new Promise<number>((resolve, reject) => {
      const ws = new WebSocket(url)
      ws.on('unexpected-response', (_request, response) => {
        resolve(response.statusCode ?? 0)
        response.resume()
        ws.terminate()
      })
      ws.on('open', () => reject(new Error('the upgrade was accepted')))
      ws.on('error', () => {})
    })
    expect(refused).toBe(status)
  })
})
