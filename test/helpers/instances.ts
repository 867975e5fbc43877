import { randomUUID } from 'node:crypto'
import { connectRedisSignalBus, type RedisSignalBus } from '../../src/signals/redis.ts'
import { createTestApp, type TestApp } from './app.ts'
import { serve, type Served } from './listening.ts'
import { TEST_REDIS_URL } from './redis.ts'

/** The PostgreSQL the multi-instance tests run on (TEST_DATABASE_URL, or 127.0.0.1:5432): they fail if it does not answer. */
export const INSTANCES_DATABASE_URL = process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres'

/**
 * Instances A and B on one PostgreSQL database and one Redis channel of the caller's own, each served
 * over HTTP, no bot answering; `cleanups` gets what ends them (run it last first).
 */
export async function twoInstances(cleanups: (() => unknown)[]): Promise<{ a: TestApp; b: TestApp; servedA: Served; servedB: Served }> {
  const channel = `confab:test:${randomUUID()}`
  const buses: RedisSignalBus[] = await Promise.all([connectRedisSignalBus(TEST_REDIS_URL, { channel }), connectRedisSignalBus(TEST_REDIS_URL, { channel })])
  cleanups.push(() => Promise.all(buses.map((bus) => bus.close())))
  const a = createTestApp({ databaseUrl: INSTANCES_DATABASE_URL, signalBus: buses[0], handlers: {} })
  cleanups.push(a.close)
  await a.ready
  const b = createTestApp({ besides: a, signalBus: buses[1], handlers: {} })
  cleanups.push(b.close)
  const servedA = await serve(a)
  cleanups.push(servedA.close)
  const servedB = await serve(b)
  cleanups.push(servedB.close)
  return { a, b, servedA, servedB }
}
