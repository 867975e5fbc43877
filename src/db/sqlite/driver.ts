import { createRequire } from 'node:module'
import type BetterSqlite3 from 'better-sqlite3'

/** better-sqlite3 13 (N-API, prebuilt): the Node lines Confab supports (22 and 24) run it. */
export const driverName = 'better-sqlite3'

const require = createRequire(import.meta.url)

/** The driver's entry file: what a worker thread that opens the database itself loads. */
export const driverPath: string = require.resolve(driverName)

export type Database = BetterSqlite3.Database
export const Database: typeof BetterSqlite3 = require(driverName)
