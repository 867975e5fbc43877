/**
 * The URLPattern yoga matches each request against its endpoint with (`new URLPattern({ pathname })`,
 * then `test(url)`), for the endpoints here: a path whose `:name` segments each match one segment.
 * Node 20 has no URLPattern, and the polyfill yoga falls back on is slow (docs/internals/performance.md).
 */
export class EndpointPattern {
  private readonly path: RegExp

  constructor({ pathname }: { pathname: string }) {
    const segments = pathname.split('/').map((segment) => (segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    this.path = new RegExp(`^${segments.join('/')}$`)
  }

  test(input: URL | string): boolean {
    return this.path.test(typeof input === 'string' ? new URL(input, 'http://localhost').pathname : input.pathname)
  }
}
