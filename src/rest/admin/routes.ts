import { agentAdminRoutes } from './agents.ts'
import { botRoutes } from './bots.ts'
import { botUserRoutes } from './users.ts'

/** Every administration operation, relative to /v1/admin. */
export const adminRoutes = [...botRoutes, ...botUserRoutes, ...agentAdminRoutes]
