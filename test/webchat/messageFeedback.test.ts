import { describe, expect, it } from 'vitest'
import { errorBody, useC1, useTestApp } from '../helpers/app.ts'

// addMessageFeedback — PUT /{webhookId}/messages/{id}/feedback {value, comment?}; removeMessageFeedback —
// DELETE on the same path; updateMessage — PUT /{webhookId}/messages/{id}. Feedback is stored on the
// message, which carries it (`feedback: {value, comment?}`) wherever it is read.

describe('message feedback and updates', () => {
  const t = useTestApp()
  const users = useC1(t, { members: ['bob'], others: ['eve'] })

  const post = async (text: string) => {
    const res = await t.chat('POST', '/messages', {
      key: users.alice.key,
      body: { conversationId: 'c1', payload: { type: 'text', text } },
    })
    return res.body.message.id as string
  }

  it('stores feedback, which the message then carries in get, list and GraphQL; DELETE removes it', async () => {
    const id = await post('rate me')
    const put = await t.chat('PUT', `/messages/${id}/feedback`, { key: users.bob.key, body: { value: 'negative', comment: 'too short' } })
    expect(put).toMatchObject({ status: 200, body: {} })
    const got = await t.chat('GET', `/messages/${id}`, { key: users.alice.key })
    expect(got.body.message.feedback).toEqual({ value: 'negative', comment: 'too short' })
    const listed = await t.chat('GET', '/conversations/c1/messages', { key: users.alice.key })
    expect(listed.body.messages.find((m: { id: string }) => m.id === id).feedback).toEqual({ value: 'negative', comment: 'too short' })

    const replaced = await t.graphql(
      'mutation($id: String!) { addMessageFeedback(input: { id: $id, value: "positive" }) { message { feedback { value comment } } } }',
      { id },
      { key: users.alice.key },
    )
    expect(replaced.body).toEqual({ data: { addMessageFeedback: { message: { feedback: { value: 'positive', comment: null } } } } })
    expect((await t.chat('GET', `/messages/${id}`, { key: users.alice.key })).body.message.feedback).toEqual({ value: 'positive' })

    const removed = await t.chat('DELETE', `/messages/${id}/feedback`, { key: users.alice.key })
    expect(removed).toMatchObject({ status: 200, body: {} })
    expect((await t.chat('GET', `/messages/${id}`, { key: users.alice.key })).body.message).not.toHaveProperty('feedback')
  })

  it('refuses a bad value (400), and a non-participant as an unknown message (404)', async () => {
    const id = await post('x')
    const bad = await t.chat('PUT', `/messages/${id}/feedback`, { key: users.alice.key, body: { value: 'meh' } })
    expect(bad).toMatchObject({
      status: 400,
      body: { ...errorBody(400, 'InvalidPayload'), message: 'value: expected one of positive, negative, got the string "meh"' },
    })
    const outsider = await t.chat('PUT', `/messages/${id}/feedback`, { key: users.eve.key, body: { value: 'positive' } })
    expect(outsider).toMatchObject({ status: 404, body: { ...errorBody(404, 'ResourceNotFound'), message: `Message "${id}" does not exist` } })
    const unknown = await t.chat('PUT', '/messages/nope/feedback', { key: users.alice.key, body: { value: 'positive' } })
    expect(unknown).toMatchObject({ status: 404, body: errorBody(404, 'ResourceNotFound') })
  })

  it('updateMessage replaces the payload and metadata for the author only', async () => {
    const id = await post('first')
    const updated = await t.chat('PUT', `/messages/${id}`, {
      key: users.alice.key,
      body: { payload: { type: 'text', text: 'second' }, metadata: { edited: true } },
    })
    expect(updated.status).toBe(200)
    expect(updated.body.message).toMatchObject({ id, payload: { type: 'text', text: 'second' }, metadata: { edited: true } })
    const notAuthor = await t.chat('PUT', `/messages/${id}`, { key: users.bob.key, body: { payload: { type: 'text', text: 'no' } } })
    expect(notAuthor).toMatchObject({ status: 403, body: errorBody(403, 'Forbidden') })
    const badPayload = await t.chat('PUT', `/messages/${id}`, { key: users.alice.key, body: { payload: { type: 'text' } } })
    expect(badPayload).toMatchObject({ status: 400, body: { ...errorBody(400, 'InvalidPayload'), message: 'payload.text is required: expected a string' } })
  })
})
