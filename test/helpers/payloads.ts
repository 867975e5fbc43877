/**
 * Message payloads of every kind, as the Chat API writes them (`{type, …}`, with properties the
 * kind does not name, which are kept), and as the GraphQL MessagePayload union reads them back.
 */

const extra = { extra: { nullable: null, list: [1, 'two', { three: 3 }], flag: true }, note: 'kept' }

const fullCard = {
  type: 'card',
  title: 'A card',
  subtitle: 'Its subtitle',
  imageUrl: 'https://media.test/card.png',
  actions: [
    { action: 'postback', label: 'Yes', value: 'yes', tracking: 'a1' },
    { action: 'url', label: 'Docs', value: 'https://docs.test' },
    { action: 'say', label: 'Hi', value: 'hi there' },
  ],
  ...extra,
}
const fullCardActions = [
  { action: 'postback', label: 'Yes', value: 'yes' },
  { action: 'url', label: 'Docs', value: 'https://docs.test' },
  { action: 'say', label: 'Hi', value: 'hi there' },
]
const fullCardRead = { type: 'card', title: 'A card', subtitle: 'Its subtitle', imageUrl: 'https://media.test/card.png', actions: fullCardActions }
const bareCard = { type: 'card', title: 'Bare', actions: [{ action: 'say', label: 'L', value: 'V' }] }
const bareCardRead = { type: 'card', title: 'Bare', subtitle: null, imageUrl: null, actions: [{ action: 'say', label: 'L', value: 'V' }] }

type Kind = [kind: string, written: Record<string, unknown>, read: Record<string, unknown>]

/** A kind of one field, which the union member reads as `read` (ImagePayload's imageUrl is aliased image). */
const single = (type: string, field: string, value: string, typename: string, read = field): Kind => [
  type,
  { type, [field]: value, ...extra },
  { __typename: typename, type, [read]: value },
]

/** [kind, payload written, what the GraphQL union reads]. */
export const KINDS: Kind[] = [
  single('text', 'text', 'Hello 👋, "quoted" \\ back\nslash', 'TextPayload'),
  single('markdown', 'markdown', '# Title\n\n**bold** _it_ — ünïcødé 🎉', 'MarkdownPayload'),
  single('image', 'imageUrl', 'https://media.test/cat.png', 'ImagePayload', 'image'),
  single('audio', 'audioUrl', 'https://media.test/clip.mp3', 'AudioPayload'),
  single('video', 'videoUrl', 'https://media.test/movie.mp4', 'VideoPayload'),
  [
    'file with a title',
    { type: 'file', fileUrl: 'https://media.test/report.pdf', title: 'Report', ...extra },
    { __typename: 'FilePayload', type: 'file', fileUrl: 'https://media.test/report.pdf', fileTitle: 'Report' },
  ],
  [
    'file without a title',
    { type: 'file', fileUrl: 'https://media.test/f.bin' },
    { __typename: 'FilePayload', type: 'file', fileUrl: 'https://media.test/f.bin', fileTitle: null },
  ],
  [
    'location with an address and a title',
    { type: 'location', latitude: 45.5017, longitude: -73.5673, address: '1 Rue Sainte-Catherine', title: 'Office', ...extra },
    { __typename: 'LocationPayload', type: 'location', latitude: 45.5017, longitude: -73.5673, address: '1 Rue Sainte-Catherine', locationTitle: 'Office' },
  ],
  [
    'location of integer coordinates only',
    { type: 'location', latitude: 0, longitude: 180 },
    { __typename: 'LocationPayload', type: 'location', latitude: 0, longitude: 180, address: null, locationTitle: null },
  ],
  ['card with every field', fullCard, { __typename: 'CardPayload', ...fullCardRead }],
  ['card with the required fields only', bareCard, { __typename: 'CardPayload', ...bareCardRead }],
  [
    'carousel',
    { type: 'carousel', items: [fullCard, bareCard], ...extra },
    { __typename: 'CarouselPayload', type: 'carousel', items: [fullCardRead, bareCardRead] },
  ],
  [
    'choice',
    {
      type: 'choice',
      text: 'Pick one',
      options: [
        { label: 'Red', value: 'red', color: '#f00' },
        { label: 'Blue', value: 'blue' },
      ],
      ...extra,
    },
    {
      __typename: 'ChoicePayload',
      type: 'choice',
      text: 'Pick one',
      options: [
        { label: 'Red', value: 'red' },
        { label: 'Blue', value: 'blue' },
      ],
    },
  ],
  [
    'dropdown',
    {
      type: 'dropdown',
      text: 'Pick a city',
      options: [
        { label: 'Montréal', value: 'yul' },
        { label: 'Québec', value: 'yqb' },
      ],
      ...extra,
    },
    {
      __typename: 'DropdownPayload',
      type: 'dropdown',
      text: 'Pick a city',
      options: [
        { label: 'Montréal', value: 'yul' },
        { label: 'Québec', value: 'yqb' },
      ],
    },
  ],
  [
    'bloc',
    {
      type: 'bloc',
      items: [
        { type: 'text', text: 'one', itemExtra: 1 },
        { type: 'markdown', markdown: '*two*' },
        { type: 'image', imageUrl: 'https://media.test/3.png' },
        { type: 'audio', audioUrl: 'https://media.test/4.mp3' },
        { type: 'video', videoUrl: 'https://media.test/5.mp4' },
        { type: 'file', fileUrl: 'https://media.test/6.pdf', title: 'six' },
        { type: 'location', latitude: 1.5, longitude: 2.5, title: 'Here' },
      ],
      ...extra,
    },
    {
      __typename: 'BlocPayload',
      type: 'bloc',
      items: [
        { __typename: 'TextPayload', type: 'text', text: 'one' },
        { __typename: 'MarkdownPayload', type: 'markdown', markdown: '*two*' },
        { __typename: 'ImagePayload', type: 'image', image: 'https://media.test/3.png' },
        { __typename: 'AudioPayload', type: 'audio', audioUrl: 'https://media.test/4.mp3' },
        { __typename: 'VideoPayload', type: 'video', videoUrl: 'https://media.test/5.mp4' },
        { __typename: 'FilePayload', type: 'file', fileUrl: 'https://media.test/6.pdf', fileTitle: 'six' },
        { __typename: 'LocationPayload', type: 'location', latitude: 1.5, longitude: 2.5, address: null, locationTitle: 'Here' },
      ],
    },
  ],
]

const validCard = { type: 'card', title: 'T', actions: [{ action: 'url', label: 'L', value: 'https://x.test' }] }

/** [kind, the field that is wrong (which a REST refusal names), payload]. */
export const INVALID_PAYLOADS: [string, string, unknown][] = [
  ['audio', 'audioUrl', { type: 'audio' }],
  ['audio', 'audioUrl', { type: 'audio', audioUrl: 5 }],
  ['card', 'title', { type: 'card', actions: [] }],
  ['card', 'title', { ...validCard, title: 7 }],
  ['card', 'actions', { type: 'card', title: 'T' }],
  ['card', 'actions', { ...validCard, actions: 'none' }],
  ['card', 'action', { ...validCard, actions: [{ action: 'jump', label: 'L', value: 'V' }] }],
  ['card', 'label', { ...validCard, actions: [{ action: 'say', value: 'V' }] }],
  ['card', 'value', { ...validCard, actions: [{ action: 'say', label: 'L', value: 1 }] }],
  ['card', 'subtitle', { ...validCard, subtitle: 3 }],
  ['carousel', 'items', { type: 'carousel' }],
  ['carousel', 'items', { type: 'carousel', items: 'cards' }],
  ['carousel', 'title', { type: 'carousel', items: [{ ...validCard, title: undefined }] }],
  ['carousel', 'type', { type: 'carousel', items: [{ type: 'text', text: 'x' }] }],
  ['choice', 'text', { type: 'choice', options: [{ label: 'A', value: 'a' }] }],
  ['choice', 'options', { type: 'choice', text: 'Pick' }],
  ['choice', 'label', { type: 'choice', text: 'Pick', options: [{ label: 1, value: 'a' }] }],
  ['choice', 'value', { type: 'choice', text: 'Pick', options: [{ label: 'A' }] }],
  ['dropdown', 'options', { type: 'dropdown', text: 'Pick' }],
  ['dropdown', 'text', { type: 'dropdown', text: 5, options: [] }],
  ['dropdown', 'value', { type: 'dropdown', text: 'Pick', options: [{ label: 'A' }] }],
  ['file', 'fileUrl', { type: 'file', title: 'Report' }],
  ['file', 'title', { type: 'file', fileUrl: 'https://media.test/f.pdf', title: 9 }],
  ['image', 'imageUrl', { type: 'image' }],
  ['image', 'imageUrl', { type: 'image', imageUrl: null }],
  ['location', 'latitude', { type: 'location', longitude: 1 }],
  ['location', 'latitude', { type: 'location', latitude: '45.5', longitude: 1 }],
  ['location', 'longitude', { type: 'location', latitude: 1 }],
  ['location', 'address', { type: 'location', latitude: 1, longitude: 1, address: 12 }],
  ['markdown', 'markdown', { type: 'markdown' }],
  ['markdown', 'markdown', { type: 'markdown', markdown: ['#'] }],
  ['text', 'text', { type: 'text' }],
  ['text', 'text', { type: 'text', text: 5 }],
  ['video', 'videoUrl', { type: 'video' }],
  ['video', 'videoUrl', { type: 'video', videoUrl: {} }],
  ['bloc', 'items', { type: 'bloc' }],
  ['bloc', 'items', { type: 'bloc', items: { type: 'text', text: 'x' } }],
  ['bloc', 'text', { type: 'bloc', items: [{ type: 'text' }] }],
  ['bloc', 'type', { type: 'bloc', items: [validCard] }],
  ['an unknown', 'type', { type: 'sticker', stickerId: 'x' }],
  ['a missing', 'type', { text: 'hello' }],
  ['a non-string', 'type', { type: 5, text: 'hello' }],
  ['a string for a', 'payload', 'hello'],
  ['an array for a', 'payload', [{ type: 'text', text: 'hi' }]],
  ['null for a', 'payload', null],
]
