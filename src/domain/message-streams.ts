import { DomainError, invalidPayload } from './errors.ts'
import type { ConversationSignal } from './signals.ts'

/** The bounds on the message streams bots publish (docs/reference/limits.md); a cap or timeout of 0 is none. */
export interface MessageStreamLimits {
  /** MESSAGE_STREAM_DELTA_MAX_BYTES: one delta's text, as UTF-8. */
  deltaMaxBytes: number
  /** MESSAGE_STREAM_DELTAS_PER_SECOND: the deltas one stream may publish a second (and in a burst). */
  deltasPerSecond: number
  /** MESSAGE_STREAMS_PER_CONVERSATION: the streams open at once in one conversation. */
  perConversation: number
  /** MESSAGE_STREAMS_PER_BOT: the streams open at once for one bot, every conversation together. */
  perBot: number
  /** MESSAGE_STREAM_IDLE_TIMEOUT_SECONDS: a stream without a delta for this long is abandoned, and forgotten. */
  idleTimeoutMs: number
}

/** What this instance knows of one stream: enough to order its deltas and to count it. */
interface KnownStream {
  conversationId: string
  /** The sequence of its last delta heard (-Infinity before the first one). */
  lastSequence: number
  /** When it last published, or ended (ms). */
  lastAt: number
  /** Its rate limit's bucket: deltas it may still publish, as of `refilledAt`; refilled at deltasPerSecond. */
  tokens: number
  refilledAt: number
  /** Completed (its final message posted) or aborted: a later delta is refused until it is forgotten. */
  ended: boolean
}

/** What a delta admitted does: published, or not again (the same sequence as the last one: a retry). */
export type Admission = 'publish' | 'repeat'

/**
 * The message streams of each bot, as this instance knows them: deltas are never stored, so what
 * orders a stream (its last sequence), rate-limits it and bounds how many are open lives here, in
 * memory. It learns of streams from every signal the hub hands out (`observe`), its own and, through
 * Redis, the other instances': a stream whose deltas reach two instances is known to both (each
 * counts its own rate). A stream that ends (its final message, or abort) is kept a while so that a
 * late delta is refused; one without a delta for `idleTimeoutMs` is forgotten, ended or not, so an
 * abandoned stream holds nothing for long; and at most `perBot` are open per bot, so a bot that
 * opens streams and never ends them holds a bounded amount.
 */
export class MessageStreams {
  /** By chat integration (one bot each), then stream id, in the order they were opened. */
  private readonly byIntegration = new Map<string, Map<string, KnownStream>>()
  private lastSweep = 0

  constructor(
    readonly limits: MessageStreamLimits,
    private readonly clock: () => number = () => Date.now(),
  ) {}

  /** Whether the stream is known and open (a delta for it needs no check of its conversation). */
  isOpen(integrationId: string, streamId: string): boolean {
    const stream = this.live(integrationId, streamId, this.clock())
    return stream !== undefined && !stream.ended
  }

  /** The conversation of an open stream, else undefined (never published, ended or forgotten). */
  openIn(integrationId: string, streamId: string): string | undefined {
    const stream = this.live(integrationId, streamId, this.clock())
    return stream && !stream.ended ? stream.conversationId : undefined
  }

  /**
   * Admits a delta of the bot, or refuses it: a delta is in order (its sequence after the stream's
   * last; the same one again is a retry, answered but not published twice), within the stream's
   * rate, of an open stream of the same conversation; a new stream within the caps.
   */
  admitDelta(integrationId: string, delta: { conversationId: string; streamId: string; sequence: number; delta: string }): Admission {
    const { deltaMaxBytes, deltasPerSecond, perConversation, perBot } = this.limits
    const now = this.clock()
    const size = Buffer.byteLength(delta.delta)
    if (deltaMaxBytes > 0 && size > deltaMaxBytes) {
      throw new DomainError('PayloadTooLarge', `input.signal.delta is ${size} bytes, over the limit of ${deltaMaxBytes} bytes (MESSAGE_STREAM_DELTA_MAX_BYTES)`)
    }
    this.sweepAll(now)
    let streams = this.byIntegration.get(integrationId)
    let stream = this.live(integrationId, delta.streamId, now)
    if (stream?.ended) throw invalidPayload(`message stream "${delta.streamId}" has ended (its final message was posted, or it was aborted)`)
    if (stream && stream.conversationId !== delta.conversationId) {
      throw invalidPayload(`message stream "${delta.streamId}" belongs to another conversation`)
    }
    if (!stream) {
      this.sweep(integrationId, now)
      const open = [...(streams?.values() ?? [])].filter((known) => !known.ended)
      if (perBot > 0 && open.length >= perBot) throw overCap(`${perBot} message streams open for this bot (MESSAGE_STREAMS_PER_BOT)`)
      if (perConversation > 0 && open.filter((known) => known.conversationId === delta.conversationId).length >= perConversation) {
        throw overCap(`${perConversation} message streams open in this conversation (MESSAGE_STREAMS_PER_CONVERSATION)`)
      }
      if (!streams) this.byIntegration.set(integrationId, (streams = new Map()))
      stream = { conversationId: delta.conversationId, lastSequence: -Infinity, lastAt: now, tokens: deltasPerSecond, refilledAt: now, ended: false }
      streams.set(delta.streamId, stream)
    }
    if (delta.sequence === stream.lastSequence) return 'repeat'
    if (delta.sequence < stream.lastSequence) {
      throw invalidPayload(
        `input.signal.sequence ${delta.sequence} is not after the stream's last (${stream.lastSequence}): a stream's deltas are published in order`,
      )
    }
    if (deltasPerSecond > 0) {
      stream.tokens = Math.min(deltasPerSecond, stream.tokens + ((now - stream.refilledAt) / 1000) * deltasPerSecond)
      stream.refilledAt = now
      if (stream.tokens < 1) {
        // Retry-After in whole seconds, as HTTP has it: when the bucket holds a delta again.
        const seconds = Math.max(1, Math.ceil((1 - stream.tokens) / deltasPerSecond))
        throw new DomainError(
          'RateLimited',
          `message stream "${delta.streamId}" is over ${deltasPerSecond} deltas a second (MESSAGE_STREAM_DELTAS_PER_SECOND)`,
          { 'retry-after': String(seconds) },
        )
      }
      stream.tokens -= 1
    }
    stream.lastSequence = delta.sequence
    stream.lastAt = now
    return 'publish'
  }

  /** Learns from a signal of any instance: a delta opens or advances its stream, a complete or abort ends it. */
  observe(integrationId: string, signal: ConversationSignal): void {
    if (signal.type !== 'message_stream_delta' && signal.type !== 'message_stream_complete' && signal.type !== 'message_stream_abort') return
    const now = this.clock()
    let streams = this.byIntegration.get(integrationId)
    const known = streams?.get(signal.streamId)
    if (signal.type === 'message_stream_delta') {
      if (known) {
        known.lastSequence = Math.max(known.lastSequence, signal.sequence)
        known.lastAt = Math.max(known.lastAt, now)
        return
      }
      // Another instance's stream: known here too, so that its abort or next delta may come here.
      if (!streams) this.byIntegration.set(integrationId, (streams = new Map()))
      streams.set(signal.streamId, {
        conversationId: signal.conversationId,
        lastSequence: signal.sequence,
        lastAt: now,
        tokens: this.limits.deltasPerSecond,
        refilledAt: now,
        ended: false,
      })
      return
    }
    if (!known || known.conversationId !== signal.conversationId) return
    known.ended = true
    known.lastAt = now
  }

  /** The streams known, ended ones included (tests, metrics). */
  size(): number {
    let count = 0
    for (const streams of this.byIntegration.values()) count += streams.size
    return count
  }

  /** The stream, unless it was idle long enough to be forgotten (then it is, now). */
  private live(integrationId: string, streamId: string, now: number): KnownStream | undefined {
    const streams = this.byIntegration.get(integrationId)
    const stream = streams?.get(streamId)
    if (!stream || !this.idle(stream, now)) return stream
    streams?.delete(streamId)
    if (streams?.size === 0) this.byIntegration.delete(integrationId)
    return undefined
  }

  private idle(stream: KnownStream, now: number): boolean {
    return this.limits.idleTimeoutMs > 0 && now - stream.lastAt >= this.limits.idleTimeoutMs
  }

  /**
   * Forgets the bot's idle streams; then, past twice MESSAGE_STREAMS_PER_BOT known, its oldest ended
   * ones (what refuses their late deltas is worth less than a bound on memory).
   */
  private sweep(integrationId: string, now: number): void {
    const streams = this.byIntegration.get(integrationId)
    if (!streams) return
    for (const [id, stream] of streams) if (this.idle(stream, now)) streams.delete(id)
    const most = this.limits.perBot * 2
    if (most > 0 && streams.size > most) {
      for (const [id, stream] of streams) {
        if (streams.size <= most) break
        if (stream.ended) streams.delete(id)
      }
    }
    if (streams.size === 0) this.byIntegration.delete(integrationId)
  }

  /** Every bot's idle streams forgotten, at most once per idle timeout: a bot that stopped streaming holds nothing for long. */
  private sweepAll(now: number): void {
    const { idleTimeoutMs } = this.limits
    if (idleTimeoutMs === 0 || now - this.lastSweep < idleTimeoutMs) return
    this.lastSweep = now
    for (const integrationId of [...this.byIntegration.keys()]) this.sweep(integrationId, now)
  }
}

/** A stream ends with its final message or its abort, which the bot sends within seconds: it may try again in one. */
const overCap = (what: string) =>
  new DomainError('RateLimited', `there are already ${what}: end one (its final message, or abort) first`, { 'retry-after': '1' })
