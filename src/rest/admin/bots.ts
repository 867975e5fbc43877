import { type BotSortField, ListBotsDocument, type SortDirection } from '../../__generated__/admin-operations.ts'
import { intParam, nodes, stringParam, toMeta } from '../bodies.ts'
import { route } from '../route.ts'

export const botRoutes = [
  route({
    operation: 'listBots',
    method: 'GET',
    path: '/bots',
    document: ListBotsDocument,
    variables: ({ query }) => ({
      after: stringParam(query, 'nextToken'),
      first: intParam(query, 'pageSize'),
      sortField: stringParam(query, 'sortField') as BotSortField | undefined,
      sortDirection: stringParam(query, 'sortDirection') as SortDirection | undefined,
    }),
    response: (d) => ({ bots: nodes(d.bots), meta: toMeta(d.bots) }),
  }),
]
