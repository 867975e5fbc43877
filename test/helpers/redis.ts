/** The Redis the multi-instance tests need (TEST_REDIS_URL, 127.0.0.1:6379 by default): they fail if it does not answer. */
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379'
