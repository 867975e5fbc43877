import { describe, expect, it } from 'vitest'
import { hostile, type Received } from './http.ts'
import { absentNodeViolations, acceptsGraphQLResponse, violations } from './oracle.ts'

// The fuzz test's oracle on answers written by hand: what the issue asks for passes, and each way
// of falling short is caught.

const id = '0b584198-55f6-46fe-b1ff-d25b4aa56930'
const answer = (status: number, body: unknown, headers: Record<string, string> = {}): Received => ({
  status,
  headers: new Headers({ 'x-request-id': id, ...headers }),
  text: body === undefined ? '' : JSON.stringify(body),
})
const json = { 'content-type': 'application/json' }
const graphqlResponse = { 'content-type': 'application/graphql-response+json; charset=utf-8' }
const graphqlError = (status: number, type: string) => ({
  errors: [{ message: 'refused', extensions: { type, status, requestId: id } }],
})

const rest = hostile({ method: 'POST', target: '/test-webhook/messages', headers: {} })
const graphql = (accept?: string) => hostile({ method: 'POST', target: '/test-webhook/graphql', headers: accept === undefined ? {} : { accept } })

describe('the fuzz oracle', () => {
  it('passes the contract error body at a REST path, with the bare or the err_ id', () => {
    expect(violations(rest, answer(404, { id, code: 404, type: 'ResourceNotFound', message: 'no' }, json))).toEqual([])
    expect(violations(rest, answer(400, { id: `err_${id}`, code: 400, type: 'InvalidPayload', message: 'no' }, json))).toEqual([])
  })

  it('catches a REST refusal without its body, with a wrong code or type, or another id', () => {
    expect(violations(rest, answer(415, undefined))).not.toEqual([])
    expect(violations(rest, answer(400, { id, code: 404, type: 'InvalidPayload', message: 'no' }, json))).not.toEqual([])
    expect(violations(rest, answer(400, { id, code: 400, type: 'BadRequest', message: 'no' }, json))).not.toEqual([])
    expect(violations(rest, answer(400, { id: 'other', code: 400, type: 'InvalidPayload', message: 'no' }, json))).not.toEqual([])
    expect(violations(rest, answer(405, { id, code: 405, type: 'MethodNotFound', message: 'no' }, json))).toEqual(['a 405 without an Allow header'])
  })

  it('catches a 5xx and a leaked internal', () => {
    expect(violations(graphql(), answer(500, graphqlError(500, 'Internal'), json))).toEqual(['a 500'])
    const leaking = { errors: [{ message: 'SqliteError: no such table', extensions: { type: 'InvalidPayload', status: 400, requestId: id } }] }
    expect(violations(graphql(), answer(200, leaking, json))).not.toEqual([])
  })

  it('passes a GraphQL refusal in the media type the Accept header allows', () => {
    expect(violations(graphql('application/graphql-response+json'), answer(401, graphqlError(401, 'Unauthorized'), graphqlResponse))).toEqual([])
    expect(violations(graphql('application/json'), answer(415, graphqlError(415, 'UnsupportedMediaType'), json))).toEqual([])
    expect(violations(graphql(), answer(404, graphqlError(404, 'ResourceNotFound'), json))).toEqual([])
    expect(violations(graphql('*/*'), answer(406, graphqlError(406, 'NotAcceptable'), json))).not.toEqual([])
  })

  it('catches a GraphQL refusal with an empty body, without a type, or with another status', () => {
    expect(violations(graphql(), answer(415, undefined))).not.toEqual([])
    expect(violations(graphql(), answer(400, { errors: [{ message: 'x', extensions: { requestId: id } }] }, json))).not.toEqual([])
    expect(violations(graphql(), answer(400, graphqlError(404, 'ResourceNotFound'), json))).not.toEqual([])
  })

  it('passes a 200 whose errors are described, and catches one that hides an internal failure', () => {
    expect(violations(graphql(), answer(200, { data: null, ...graphqlError(400, 'InvalidPayload') }, json))).toEqual([])
    expect(violations(graphql(), answer(200, { data: null, ...graphqlError(500, 'Internal') }, json))).not.toEqual([])
  })

  it('reads the Accept header by the most specific range and its q', () => {
    expect(acceptsGraphQLResponse(undefined)).toBeUndefined()
    expect(acceptsGraphQLResponse('application/json')).toBe(false)
    expect(acceptsGraphQLResponse('*/*')).toBe(true)
    expect(acceptsGraphQLResponse('application/json, application/graphql-response+json;q=0')).toBe(false)
    expect(acceptsGraphQLResponse('image/png;q=0.5, */*;q=0')).toBe(false)
  })

  it('wants null, and no error, for each id a scope cannot read', () => {
    expect(absentNodeViolations(answer(200, { data: { nodes: [null, null] } }, json))).toEqual([])
    expect(absentNodeViolations(answer(200, { data: { node: null }, ...graphqlError(400, 'InvalidPayload') }, json))).not.toEqual([])
    expect(absentNodeViolations(answer(200, { data: { node: { id: 'x' } } }, json))).not.toEqual([])
  })
})
