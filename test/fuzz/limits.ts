import fc from 'fast-check'
import { bodyLimits } from '../../src/http/body.ts'
import { hostile, oversizeBytes } from './http.ts'
import { isBodyless, routeEndpoints } from './rest.ts'
import type { World } from './world.ts'

const MiB = 1024 * 1024

/** Every chat path that reads a body: the REST operations that take one and the GraphQL endpoints. */
const bodyTargets = [
  ...routeEndpoints.filter((e) => e.mount === 'chat' && !isBodyless(e.method)).map(({ method, path }) => ({ method, path })),
  { method: 'POST', path: '/graphql' },
  { method: 'POST', path: '/graphql/stream' },
]

/**
 * Bodies over the payload limits: real bytes just over the chat limit (with or without their
 * Content-Length), or a small body whose Content-Length claims more than the chat or admin limit.
 */
export const oversize = (world: World) => {
  const chatTarget = fc.constantFrom(...bodyTargets).map(({ method, path }) => ({ method, target: `/${world.webhookId}${path.replace(/\{\w+\}/g, 'c1')}` }))
  const chat = { 'x-user-key': world.userKey }
  const admin = { authorization: `Bearer ${world.adminToken}`, 'x-workspace-id': world.workspaceId }
  return fc.oneof(
    fc
      .record({
        to: chatTarget,
        fill: fc.constantFrom('x', '😀', '{', '\u0000'),
        extra: fc.integer({ min: 1, max: 64 * 1024 }),
        declared: fc.boolean(),
      })
      .map(({ to, fill, extra, declared }) => {
        const body = { fill, bytes: bodyLimits.chat + extra }
        const length: Record<string, string> = declared ? { 'content-length': String(oversizeBytes(body)) } : {}
        return hostile({ ...to, headers: { 'content-type': 'application/json', ...chat, ...length }, body })
      }),
    fc.record({ to: fc.option(chatTarget, { nil: undefined }), over: fc.integer({ min: 1, max: 100 * MiB }) }).map(({ to, over }) => {
      const limit = to ? bodyLimits.chat : bodyLimits.admin
      return hostile({
        ...(to ?? { method: 'POST', target: '/v1/admin/graphql' }),
        headers: { 'content-type': 'application/json', 'content-length': String(limit + over), ...(to ? chat : admin) },
        body: '{}',
      })
    }),
  )
}
