import { createRequire } from 'node:module'
import type BetterSqlite3 from 'better-sqlite3'

/**
 * better-sqlite3, in the major that runs on this Node line. 13 (N-API, prebuilt) needs Node ≥ 22 and
 * crashes on 20; 12 (built at install) aborts on Node 24 when a statement is finalized after its
 * thread's environment is gone. So Node 22 and later load 13 (`better-sqlite3`), Node 20 loads 12
 * (`better-sqlite3-node20`, an optional dependency: a failed build of it fails no install on 22+).
 */
const nodeMajor = Number(process.versions.node.split('.')[0])
export const driverName = nodeMajor >= 22 ? 'better-sqlite3' : 'better-sqlite3-node20'

const require = createRequire(import.meta.url)

/** The driver's entry file: what a worker thread that opens the database itself loads. */
export const driverPath: string = require.resolve(driverName)

export type Database = BetterSqlite3.Database
export const Database: typeof BetterSqlite3 = require(driverName)
