import { describe, expect, it } from 'vitest'
import { ConfigError, defaultLimits, loadConfig } from '../../src/config.ts'

// Every cap and timeout of docs/reference/limits.md is set by its environment variable; 0 turns one off, and
// RATE_LIMITS=off turns every per-key/per-address cap off at once while sizes and timeouts stay.

describe('the caps and timeouts settings', () => {
  it('default to the documented values', () => {
    expect(loadConfig({}).caps).toEqual({
      headersTimeoutMs: 20_000,
      requestTimeoutMs: 60_000,
      keepAliveTimeoutMs: 5_000,
      maxConnections: 20_000,
      subscriptionsPerSocket: 100,
      socketsPerUser: 20,
      socketsPerAddress: 100,
      streamsPerUser: 20,
      streamsPerAddress: 100,
      subscriptionsPerUser: 50,
      subscriptionsPerConversation: 100,
      sendQueueBytes: 1024 * 1024,
      storagePerUser: 50 * 1024 * 1024,
      messageStoragePerUser: 50 * 1024 * 1024,
      messageMaxBytes: 128 * 1024,
      responseMaxBytes: 8 * 1024 * 1024,
      messageStreamDeltaMaxBytes: 16 * 1024,
      messageStreamDeltasPerSecond: 50,
      messageStreamsPerConversation: 8,
      messageStreamsPerBot: 1000,
      messageStreamIdleTimeoutMs: 60_000,
    })
  })

  it('are each read from their environment variable, seconds for timeouts, and 0 turns one off', () => {
    const env = {
      HTTP_HEADERS_TIMEOUT_SECONDS: '2.5',
      HTTP_REQUEST_TIMEOUT_SECONDS: '30',
      HTTP_KEEP_ALIVE_TIMEOUT_SECONDS: '65',
      HTTP_MAX_CONNECTIONS: '0',
      WS_SUBSCRIPTIONS_PER_SOCKET: '7',
      WS_SOCKETS_PER_USER: '3',
      WS_SOCKETS_PER_ADDRESS: '0',
      SSE_STREAMS_PER_USER: '4',
      SSE_STREAMS_PER_ADDRESS: '9',
      SUBSCRIPTIONS_PER_USER: '5',
      SUBSCRIPTIONS_PER_CONVERSATION: '6',
      SEND_QUEUE_MAX_BYTES: '65536',
      FILE_STORAGE_PER_USER_BYTES: '1000',
      MESSAGE_STORAGE_PER_USER_BYTES: '2000',
      MESSAGE_MAX_BYTES: '0',
      RESPONSE_MAX_BYTES: '65536',
      MESSAGE_STREAM_DELTA_MAX_BYTES: '1024',
      MESSAGE_STREAM_DELTAS_PER_SECOND: '0',
      MESSAGE_STREAMS_PER_CONVERSATION: '2',
      MESSAGE_STREAMS_PER_BOT: '20',
      MESSAGE_STREAM_IDLE_TIMEOUT_SECONDS: '1.5',
    }
    expect(loadConfig(env).caps).toEqual({
      headersTimeoutMs: 2_500,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 65_000,
      maxConnections: 0,
      subscriptionsPerSocket: 7,
      socketsPerUser: 3,
      socketsPerAddress: 0,
      streamsPerUser: 4,
      streamsPerAddress: 9,
      subscriptionsPerUser: 5,
      subscriptionsPerConversation: 6,
      sendQueueBytes: 65_536,
      storagePerUser: 1000,
      messageStoragePerUser: 2000,
      messageMaxBytes: 0,
      responseMaxBytes: 65_536,
      messageStreamDeltaMaxBytes: 1024,
      messageStreamDeltasPerSecond: 0,
      messageStreamsPerConversation: 2,
      messageStreamsPerBot: 20,
      messageStreamIdleTimeoutMs: 1_500,
    })
  })

  it('RATE_LIMITS=off turns every per-key and per-address cap off; sizes and timeouts stay', () => {
    const limits = loadConfig({ RATE_LIMITS: 'off', SSE_STREAMS_PER_USER: '4', MESSAGE_MAX_BYTES: '500', SEND_QUEUE_MAX_BYTES: '4096' }).caps
    expect(limits).toEqual({
      ...defaultLimits,
      messageMaxBytes: 500,
      sendQueueBytes: 4096,
      subscriptionsPerSocket: 0,
      socketsPerUser: 0,
      socketsPerAddress: 0,
      streamsPerUser: 0,
      streamsPerAddress: 0,
      subscriptionsPerUser: 0,
      subscriptionsPerConversation: 0,
      storagePerUser: 0,
      messageStoragePerUser: 0,
      messageStreamDeltasPerSecond: 0,
    })
  })

  it('still read the caps per user under their former names (…_PER_KEY) when the new ones are unset', () => {
    expect(loadConfig({ WS_SOCKETS_PER_KEY: '3', SSE_STREAMS_PER_KEY: '4' }).caps).toMatchObject({ socketsPerUser: 3, streamsPerUser: 4 })
    expect(loadConfig({ WS_SOCKETS_PER_KEY: '3', WS_SOCKETS_PER_USER: '5' }).caps).toMatchObject({ socketsPerUser: 5 })
    expect(() => loadConfig({ SSE_STREAMS_PER_KEY: 'many' })).toThrow('SSE_STREAMS_PER_KEY')
  })

  it.each([
    ['SSE_STREAMS_PER_USER', '-1'],
    ['SSE_STREAMS_PER_USER', '2.5'],
    ['WS_SOCKETS_PER_USER', 'many'],
    ['SUBSCRIPTIONS_PER_CONVERSATION', '-3'],
    ['SEND_QUEUE_MAX_BYTES', '1.5'],
    ['HTTP_REQUEST_TIMEOUT_SECONDS', 'soon'],
    ['RESPONSE_MAX_BYTES', '8MB'],
  ])('refuse %s=%s at start', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError)
    expect(() => loadConfig({ [name]: value })).toThrow(name)
  })

  it('refuse a headers timeout longer than the request timeout (Node would throw)', () => {
    expect(() => loadConfig({ HTTP_HEADERS_TIMEOUT_SECONDS: '90', HTTP_REQUEST_TIMEOUT_SECONDS: '30' })).toThrow(/HTTP_HEADERS_TIMEOUT_SECONDS/)
  })
})

describe('GRAPHIQL', () => {
  it('is on unless set off', () => {
    expect(loadConfig({}).graphiql).toBe(true)
    expect(loadConfig({ GRAPHIQL: 'on' }).graphiql).toBe(true)
    expect(loadConfig({ GRAPHIQL: 'off' }).graphiql).toBe(false)
  })

  it('refuses anything else at start, naming the variable', () => {
    expect(() => loadConfig({ GRAPHIQL: 'no' })).toThrow(/GRAPHIQL must be "on" or "off"/)
  })
})
