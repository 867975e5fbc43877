import { type DefaultConnectionArguments, parseCursorConnectionArgs } from '@pothos/plugin-relay'
import { type FieldNode, getArgumentValues, getNamedType, type GraphQLResolveInfo, isObjectType, Kind } from 'graphql'
import { invalidPayload } from '../domain/errors.ts'
import type { PageWindow } from '../domain/paging.ts'

export const defaultPageSize = 20
export const maxPageSize = 100

/**
 * Runs a domain list verb for a connection's arguments, refusing page sizes outside 1–100. It is
 * plugin-relay's resolveCursorConnection, except that a cursor is encoded only when it is asked
 * for: a page of 20 read through REST asks for one (its nextToken), not 21.
 */
export async function pageConnection<T extends { readonly cursor: string }>(
  args: DefaultConnectionArguments,
  list: (window: PageWindow) => T[] | Promise<T[]>,
) {
  const { window, expectedSize, hasPreviousPage, hasNextPage } = connectionWindow(args)
  const nodes = await list(window)
  const page = nodes.slice(0, expectedSize)
  if (window.inverted) page.reverse()
  const from = args.after ?? args.before ?? ''
  return { edges: page.map((node) => new Edge(node)), pageInfo: new PageInfo(page, from, hasPreviousPage(nodes.length), hasNextPage(nodes.length)) }
}

/** The window a connection's arguments ask for (the key its page is loaded and kept by), and how to read the page. */
export function connectionWindow(args: DefaultConnectionArguments) {
  for (const [name, size] of [
    ['first', args.first],
    ['last', args.last],
  ] as const) {
    if (size != null && (size < 1 || size > maxPageSize)) {
      throw invalidPayload(`${name} (page size) must be from 1 to ${maxPageSize}, got ${size}`)
    }
  }
  const { before, after, limit, inverted, expectedSize, hasPreviousPage, hasNextPage } = parseCursorConnectionArgs({
    args,
    defaultSize: defaultPageSize,
    maxSize: maxPageSize,
  })
  const window: PageWindow = { before, after, limit, inverted }
  return { window, expectedSize, hasPreviousPage, hasNextPage }
}

/**
 * The window of the one page of connection `field` that a field's selection asks for (a REST list
 * asks for its conversation's messages), so that the field's resolver may read it with its own
 * row. Undefined when it asks for none, for several, or for one whose arguments the connection will
 * refuse itself.
 */
export function pageAsked(info: GraphQLResolveInfo, field: string): PageWindow | undefined {
  const [node, ...others] = info.fieldNodes
  if (!node?.selectionSet || others.length > 0) return undefined
  let asked: FieldNode | undefined
  for (const selection of node.selectionSet.selections) {
    if (selection.kind !== Kind.FIELD || selection.name.value !== field) continue
    if (asked) return undefined
    asked = selection
  }
  const type = getNamedType(info.returnType)
  const definition = asked && isObjectType(type) ? type.getFields()[field] : undefined
  if (!asked || !definition) return undefined
  try {
    return connectionWindow(getArgumentValues(definition, asked, info.variableValues)).window
  } catch {
    return undefined
  }
}

// Classes, not object literals with getters: such literals share no shape (docs/internals/performance.md).

class Edge<T extends { readonly cursor: string }> {
  constructor(readonly node: T) {}
  get cursor(): string {
    return this.node.cursor
  }
}

class PageInfo {
  constructor(
    private readonly page: readonly { readonly cursor: string }[],
    /** An empty page's cursors are the one it was asked from, as plugin-relay gives them. */
    private readonly from: string,
    readonly hasPreviousPage: boolean,
    readonly hasNextPage: boolean,
  ) {}
  get startCursor(): string {
    return this.page[0]?.cursor ?? this.from
  }
  get endCursor(): string {
    return this.page.at(-1)?.cursor ?? this.from
  }
}
