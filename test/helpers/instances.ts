import { randomUUID } from 'node:crypto'
import { connectRedisSignalBus, type RedisSignalBus } from '../../src/signals/redis.ts'
import { createTestApp, type TestApp } from './app.ts'
import { type Served, serve } from './listening.ts'
import { TEST_REDIS_URL } from './redis.ts'

/** The PostgreSQL database the multi-instance tests share (TEST_DATABASE_URL, or 127.0.0.1:5432). */
export const POSTGRES_URL = process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres'

/**
 * Instances A and B on one PostgreSQL database and one Redis channel of their own, each behind a real
 * HTTP server, without in-process bots. What is opened is pushed on `cleanups` as it is, for the test
 * to undo in reverse order (even when a later step of the set-up fails).
 */
export async function twoInstances(cleanups: (() => unknown)[]): Promise<{ a: TestApp; b: TestApp; servedA: Served; servedB: Served }> {
  const channel = `confab:test:${randomUUID()}`
  const buses: RedisSignalBus[] = await Promise.all([connectRedisSignalBus(TEST_REDIS_URL, { channel }), connectRedisSignalBus(TEST_REDIS_URL, { channel })])
  cleanups.push(() => Promise.all(buses.map((bus) => bus.close())))
  const a = createTestApp({ databaseUrl: POSTGRES_URL, signalBus: buses[0], handlers: {} })
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
