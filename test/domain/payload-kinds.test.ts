import { describe, expect, expectTypeOf, it } from 'vitest'
import { type MessagePayload, type PayloadKind, parseMessagePayload, payloadKinds } from '../../src/domain/payloads.ts'

type Of<K extends PayloadKind> = Extract<MessagePayload, { type: K }>

describe('the types derived from the payload table', () => {
  it('name the twelve kinds', () => {
    expectTypeOf<PayloadKind>().toEqualTypeOf<
      'audio' | 'card' | 'carousel' | 'choice' | 'dropdown' | 'file' | 'image' | 'location' | 'markdown' | 'text' | 'video' | 'bloc'
    >()
    expect(payloadKinds).toEqual(['audio', 'card', 'carousel', 'choice', 'dropdown', 'file', 'image', 'location', 'markdown', 'text', 'video', 'bloc'])
  })

  it('carry required and optional fields, enums and nested objects, and keep unnamed properties', () => {
    expectTypeOf<Of<'file'>>().toEqualTypeOf<{ [property: string]: unknown; type: 'file'; fileUrl: string; title?: string }>()
    expectTypeOf<Of<'location'>>().toEqualTypeOf<{
      [property: string]: unknown
      type: 'location'
      latitude: number
      longitude: number
      address?: string
      title?: string
    }>()
    type Action = { [property: string]: unknown; action: 'postback' | 'url' | 'say'; label: string; value: string }
    type Card = {
      [property: string]: unknown
      type: 'card'
      title: string
      subtitle?: string
      imageUrl?: string
      actions: Action[]
    }
    expectTypeOf<Of<'card'>>().toEqualTypeOf<Card>()
    expectTypeOf<Of<'carousel'>>().toEqualTypeOf<{ [property: string]: unknown; type: 'carousel'; items: Card[] }>()
    expectTypeOf<Of<'choice'>['options'][number]>().toEqualTypeOf<{ [property: string]: unknown; label: string; value: string }>()
  })

  it('make a bloc item one of the seven simple kinds', () => {
    expectTypeOf<Of<'bloc'>['items'][number]>().toEqualTypeOf<Of<'text' | 'markdown' | 'image' | 'audio' | 'video' | 'file' | 'location'>>()
  })
})

describe('validation derived from the payload table', () => {
  const refusal = (payload: unknown) => {
    try {
      parseMessagePayload(payload)
    } catch (error) {
      return (error as Error).message
    }
    throw new Error('the payload was accepted')
  }

  it('names the path of a bad field however deep it is', () => {
    const action = { action: 'jump', label: 'L', value: 'V' }
    const payload = { type: 'carousel', items: [{ type: 'card', title: 'T', actions: [action] }] }
    expect(refusal(payload)).toBe('invalid message payload: payload.items.0.actions.0.action: Invalid option: expected one of "postback"|"url"|"say"')
    expect(refusal({ type: 'bloc', items: [{ type: 'location', latitude: 1 }] })).toBe(
      'invalid message payload: payload.items.0.longitude: Invalid input: expected number, received undefined',
    )
  })

  it('lists the kinds in table order when the type is unknown', () => {
    expect(refusal({ type: 'sticker' })).toBe(
      "invalid message payload: payload.type: Invalid discriminator value. Expected 'audio' | 'card' | 'carousel' | " +
        "'choice' | 'dropdown' | 'file' | 'image' | 'location' | 'markdown' | 'text' | 'video' | 'bloc'",
    )
    expect(refusal({ type: 'bloc', items: [{ type: 'card', title: 'T', actions: [] }] })).toBe(
      "invalid message payload: payload.items.0.type: Invalid discriminator value. Expected 'text' | 'markdown' | " +
        "'image' | 'audio' | 'video' | 'file' | 'location'",
    )
  })

  it('returns the payload untouched, unnamed properties included', () => {
    const payload = { note: 1, type: 'choice', text: 'Pick', options: [{ label: 'A', value: 'a', color: 'red' }] }
    expect(parseMessagePayload(payload)).toBe(payload)
  })
})
