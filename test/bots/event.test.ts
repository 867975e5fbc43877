import { describe, expect, it } from 'vitest'
import type { EventRow, MessageRow } from '../../src/db/schema.ts'
import { incomingCustomEvent, incomingMessageEvent, previewOf } from '../../src/domain/bots/delivery/event.ts'
import type { MessagePayload } from '../../src/domain/payloads.ts'

// The `event` object bot code reads (spec part 6), built from a stored message or custom event.

const BOT = 'bot_1'
const EVENT_ID = 'evt_1'
const CREATED_AT = '2030-04-05T06:07:08.009Z'

const messageRow = (payload: Record<string, unknown>, metadata: Record<string, unknown> | null = null): MessageRow => ({
  integrationId: 'int_1',
  id: 'msg_1',
  conversationId: 'conv_1',
  userId: 'alice',
  payload,
  metadata,
  feedback: null,
  createdAt: CREATED_AT,
})

const eventRow = (payload: Record<string, unknown>): EventRow => ({
  integrationId: 'int_1',
  id: 'cev_1',
  conversationId: 'conv_1',
  userId: 'alice',
  payload,
  createdAt: CREATED_AT,
})

/** The event of an incoming row of alice's in conv_1, with the fields of its kind. */
const incoming = (fields: Record<string, unknown>) => ({
  botId: BOT,
  conversationId: 'conv_1',
  createdOn: new Date(CREATED_AT),
  direction: 'incoming',
  id: EVENT_ID,
  integration: 'chat',
  state: {},
  tags: { conversation: {}, message: {}, user: {} },
  userId: 'alice',
  ...fields,
})

const card = (title: string, subtitle?: string) => ({
  type: 'card',
  title,
  ...(subtitle === undefined ? {} : { subtitle }),
  imageUrl: 'https://pics.test/card.png',
  actions: [
    { action: 'postback', label: 'Yes', value: 'y' },
    { action: 'url', label: 'Site', value: 'https://site.test' },
  ],
})

/** One payload of each of the 12 kinds (some more than once), with the preview each one gets. */
const payloads: [name: string, payload: Record<string, unknown>, preview: string][] = [
  ['text', { type: 'text', text: 'Hello there' }, 'Hello there'],
  ['text with extra properties', { type: 'text', text: 'Hi', lang: 'en' }, 'Hi'],
  ['markdown', { type: 'markdown', markdown: '**bold** move' }, '**bold** move'],
  ['image', { type: 'image', imageUrl: 'https://pics.test/1.png' }, '[image] https://pics.test/1.png'],
  ['audio', { type: 'audio', audioUrl: 'https://sounds.test/1.mp3' }, '[audio] https://sounds.test/1.mp3'],
  ['video', { type: 'video', videoUrl: 'https://videos.test/1.mp4' }, '[video] https://videos.test/1.mp4'],
  ['file without a title', { type: 'file', fileUrl: 'https://files.test/a.pdf' }, '[file] https://files.test/a.pdf'],
  ['file with a title', { type: 'file', fileUrl: 'https://files.test/a.pdf', title: 'Invoice' }, '[file] Invoice (https://files.test/a.pdf)'],
  ['location with coordinates only', { type: 'location', latitude: 45.5, longitude: -73.25 }, '[location] 45.5, -73.25'],
  ['location with an address', { type: 'location', latitude: 45.5, longitude: -73.25, address: '1 Main St' }, '[location] 1 Main St (45.5, -73.25)'],
  [
    'location with a title and an address',
    { type: 'location', latitude: 0, longitude: 10, address: '1 Main St', title: 'Office' },
    '[location] Office (0, 10)',
  ],
  ['card with a subtitle', card('Pick one', 'or not'), 'Pick one — or not\n[Yes]\n[Site]'],
  ['card without a subtitle or actions', { type: 'card', title: 'Plain', actions: [] }, 'Plain'],
  ['carousel', { type: 'carousel', items: [card('First', 'one'), card('Second')] }, 'First — one\n[Yes]\n[Site]\nSecond\n[Yes]\n[Site]'],
  [
    'choice',
    {
      type: 'choice',
      text: 'Which one?',
      options: [
        { label: 'Red', value: 'r' },
        { label: 'Blue', value: 'b' },
      ],
    },
    'Which one?\n- Red\n- Blue',
  ],
  ['dropdown', { type: 'dropdown', text: 'Country', options: [{ label: 'Canada', value: 'ca' }] }, 'Country\n- Canada'],
  [
    'bloc',
    {
      type: 'bloc',
      items: [
        { type: 'text', text: 'Look:' },
        { type: 'image', imageUrl: 'https://pics.test/2.png' },
        { type: 'markdown', markdown: '_fin_' },
        { type: 'file', fileUrl: 'https://files.test/b.pdf', title: 'Notes' },
        { type: 'location', latitude: 1, longitude: 2, title: 'Here' },
        { type: 'audio', audioUrl: 'https://sounds.test/2.mp3' },
        { type: 'video', videoUrl: 'https://videos.test/2.mp4' },
      ],
    },
    [
      'Look:',
      '[image] https://pics.test/2.png',
      '_fin_',
      '[file] Notes (https://files.test/b.pdf)',
      '[location] Here (1, 2)',
      '[audio] https://sounds.test/2.mp3',
      '[video] https://videos.test/2.mp4',
    ].join('\n'),
  ],
]

describe('incomingMessageEvent', () => {
  it('covers the 12 payload kinds', () => {
    expect(new Set(payloads.map(([, payload]) => payload.type))).toEqual(
      new Set(['audio', 'card', 'carousel', 'choice', 'dropdown', 'file', 'image', 'location', 'markdown', 'text', 'video', 'bloc']),
    )
  })

  it.each(payloads)('builds the event of a %s message, field by field', (_name, payload, preview) => {
    const event = incomingMessageEvent(BOT, EVENT_ID, messageRow(payload))
    expect(event).toStrictEqual(incoming({ messageId: 'msg_1', payload, preview, type: 'message' }))
    expect(event.createdOn).toBeInstanceOf(Date)
    expect(event.createdOn.toISOString()).toBe(CREATED_AT)
  })

  it('leaves the message metadata out of the event', () => {
    const event = incomingMessageEvent(BOT, EVENT_ID, messageRow({ type: 'text', text: 'x' }, { secret: 1 }))
    expect(Object.keys(event).sort()).toEqual([
      'botId',
      'conversationId',
      'createdOn',
      'direction',
      'id',
      'integration',
      'messageId',
      'payload',
      'preview',
      'state',
      'tags',
      'type',
      'userId',
    ])
    expect(JSON.stringify(event)).not.toContain('secret')
  })

  it('gives each event its own state and tags objects', () => {
    const first = incomingMessageEvent(BOT, 'e1', messageRow({ type: 'text', text: 'a' }))
    const second = incomingMessageEvent(BOT, 'e2', messageRow({ type: 'text', text: 'b' }))
    first.state.touched = true
    first.tags!.user!.vip = 'yes'
    expect(second.state).toEqual({})
    expect(second.tags).toEqual({ conversation: {}, message: {}, user: {} })
  })
})

describe('previewOf', () => {
  it.each(payloads)('renders a %s payload as plain text', (_name, payload, preview) => {
    expect(previewOf(payload as MessagePayload)).toBe(preview)
  })
})

describe('incomingCustomEvent', () => {
  it.each([
    ['the string type of its payload', { type: 'typing', on: true }, 'typing'],
    ['custom when its payload has no type', { on: true }, 'custom'],
    ['custom when its payload type is empty', { type: '' }, 'custom'],
    ['custom when its payload type is not a string', { type: 5 }, 'custom'],
    ['custom for an empty payload', {}, 'custom'],
  ])('builds the event field by field, typed by %s', (_what, payload, type) => {
    const event = incomingCustomEvent(BOT, EVENT_ID, eventRow(payload))
    expect(event).toStrictEqual(incoming({ payload, preview: JSON.stringify(payload), type }))
    expect(event).not.toHaveProperty('messageId')
  })

  it('previews a nested payload as its JSON text', () => {
    const payload = { type: 'form', fields: { name: 'Ann', tags: ['a', 'b'] } }
    expect(incomingCustomEvent(BOT, EVENT_ID, eventRow(payload)).preview).toBe('{"type":"form","fields":{"name":"Ann","tags":["a","b"]}}')
  })
})
