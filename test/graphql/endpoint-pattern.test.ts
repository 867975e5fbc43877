import { describe, expect, it } from 'vitest'
import { EndpointPattern } from '../../src/graphql/endpoint-pattern.ts'

// What yoga asks of URLPattern for its endpoint, answered as URLPattern answers it.

describe('the GraphQL endpoint pattern', () => {
  it('matches a :name segment with any one segment, and the rest of the path exactly', () => {
    const chat = new EndpointPattern({ pathname: '/:webhookId/graphql' })
    expect(chat.test(new URL('http://h/wh_1/graphql'))).toBe(true)
    expect(chat.test(new URL('http://h/wh_1/graphql?query={me{userId}}'))).toBe(true)
    expect(chat.test('http://h/a%20b/graphql')).toBe(true)
    for (const path of ['/graphql', '/a/b/graphql', '/wh/graphql/', '/wh/graphqlx', '//graphql']) {
      expect(chat.test(new URL(`http://h${path}`)), path).toBe(false)
    }
    const admin = new EndpointPattern({ pathname: '/v1/admin/graphql' })
    expect(admin.test(new URL('http://h/v1/admin/graphql'))).toBe(true)
    expect(admin.test(new URL('http://h/v1/admin.graphql'))).toBe(false)
  })
})
