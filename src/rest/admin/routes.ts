import { botRoutes } from './bots.ts'

/** Every administration operation, relative to /v1/admin. */
export const adminRoutes = [...botRoutes]
