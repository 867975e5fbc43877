import { gunzipSync } from 'node:zlib'
import { isNonNullType, isObjectType } from 'graphql'
import { describe, expect, it } from 'vitest'
import { agentSchema } from '../../src/graphql/agent-schema.ts'
import { adminSchema, chatSchema } from '../../src/graphql/schema.ts'
import { BASE, useTestApp, WEBHOOK_ID } from '../helpers/app.ts'
import { expectRequestError } from '../helpers/graphql.ts'

// Two schemas from one builder: the chat schema (a user's operations) and the admin schema (bots),
// each on its own endpoint, neither exposing the other's fields.

const FIELDS = '{ __schema { queryType { fields { name } } mutationType { fields { name } } } }'
const names = (type: { fields: { name: string }[] } | null) => type?.fields.map((f) => f.name).sort() ?? null

describe('chat and admin schemas', () => {
  const t = useTestApp({ handlers: {} })

  it('the chat schema has the chat fields and no admin field', async () => {
    const alice = await t.user('alice')
    const { data } = (await t.graphql(FIELDS, {}, { key: alice.key })).body
    expect(names(data.__schema.queryType)).toEqual(['conversation', 'conversations', 'event', 'me', 'message', 'node', 'nodes'])
    expect(names(data.__schema.mutationType)).toEqual([
      'addMessageFeedback',
      'addParticipant',
      'createConversation',
      'createEvent',
      'createFile',
      'createMessage',
      'createUser',
      'deleteConversation',
      'deleteMessage',
      'deleteUser',
      'generateUserKey',
      'getOrCreateConversation',
      'getOrCreateUser',
      'removeMessageFeedback',
      'removeParticipant',
      'startTyping',
      'stopTyping',
      'updateMessage',
      'updateUser',
    ])
  })

  it('the admin schema has the admin fields and no chat field', async () => {
    const res = await t.adminGraphql(FIELDS)
    expect(names(res.body.data.__schema.queryType)).toEqual([
      'agents',
      'bot',
      'botApiKeys',
      'botConversations',
      'botLogs',
      'botUserExport',
      'botUsers',
      'bots',
      'node',
      'nodes',
    ])
    expect(names(res.body.data.__schema.mutationType)).toEqual([
      'createAgent',
      'createBot',
      'createBotApiKey',
      'deleteAgent',
      'deleteBot',
      'deleteBotApiKey',
      'deleteBotUser',
      'rotateBotSigningSecrets',
      'updateBot',
    ])
  })

  it.each([
    ['the chat schema rejects bots', async () => t.graphql('{ bots { edges { node { name } } } }', {}, { key: (await t.user('alice')).key })],
    ['the admin schema rejects me', async () => t.adminGraphql('{ me { userId } }')],
  ])('%s with a validation error', async (_what, request) => {
    const res = await request()
    expect(res.body.data).toBeUndefined()
    expect(res.body.errors).toEqual([expect.objectContaining({ extensions: expect.objectContaining({ code: 'GRAPHQL_VALIDATION_FAILED' }) })])
  })

  it('the admin schema rejects chat mutations before execution', async () => {
    const res = await t.adminGraphql('mutation { createConversation(input: {}) { conversation { id } } }')
    expect(res.body.errors).toHaveLength(1)
    expectRequestError({ ...res.body, data: res.body.data ?? undefined })
  })

  it.each([
    ['chat', `${BASE}/${WEBHOOK_ID}/graphql`],
    ['admin', `${BASE}/v1/admin/graphql`],
  ])('serves GraphiQL on GET for the %s endpoint, posting to the address it was opened at', async (_name, url) => {
    const response = await t.send('GET', url, { headers: { accept: 'text/html', 'accept-encoding': 'gzip' } })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/^text\/html/)
    const html = gunzipSync(Buffer.from(await response.arrayBuffer())).toString('utf8')
    expect(html).toMatch(/^\s*<!doctype html>/i)
    // No endpoint named: GraphiQL posts to location.pathname, so that one page serves every webhook id.
    expect(html).not.toContain('"endpoint"')
    // Offline: everything it runs is inlined, and its Content-Security-Policy lets it load nothing from elsewhere.
    expect(html).not.toMatch(/<script[^>]*\ssrc=|<link[^>]*\shref=["']?(https?:)?\/\//i)
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'")
    expect(response.headers.get('content-security-policy')).toContain("connect-src 'self'")
  })
})

describe('mutation payloads of one shape', () => {
  // Every chat, admin and agent mutation takes one `input: <Name>Input!` (none when it needs nothing) and
  // answers a `<Name>Payload!` object naming what it affected: the node (`message`, `bot`…), or the id
  // of what it deleted (`messageId`, `botId`…). The bot API's schema is Botpress's JSON bodies instead.
  it.each([
    ['chat', chatSchema],
    ['admin', adminSchema],
    ['agent', agentSchema],
  ] as const)('the %s schema', (_name, schema) => {
    const outliers = Object.values(schema.getMutationType()!.getFields()).flatMap((field) => {
      const name = field.name[0]!.toUpperCase() + field.name.slice(1)
      const payload = isNonNullType(field.type) && isObjectType(field.type.ofType) && field.type.ofType.name === `${name}Payload`
      const args = field.args.map((arg) => `${arg.name}: ${String(arg.type)}`)
      const input = args.length === 0 || (args.length === 1 && args[0] === `input: ${name}Input!`)
      return payload && input ? [] : [`${field.name}(${args.join(', ')}): ${String(field.type)}`]
    })
    expect(outliers).toEqual([])
  })
})
