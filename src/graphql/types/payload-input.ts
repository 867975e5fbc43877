import { builder } from '../builder.ts'
import { CardActionKind } from './payload.ts'

/*
 * The payload of createMessage as a @oneOf input: one field per payload kind, so that a typed client
 * sends exactly one kind. Every object level has an `extra` JSON object for the properties its kind
 * does not name, which the Chat API keeps; `payloadFromInput` and `payloadToInput` convert between
 * this input and the Chat API's `{type, …}` JSON, keeping known fields first and extras after them.
 */

type Json = Record<string, unknown>

/** How one object level of a payload maps: its known fields, and for nested ones, their shape. */
interface Shape {
  fields: Record<string, Shape | Shape[] | OneOf[] | null>
  /** The `type` literal this level carries in the Chat API JSON, if any. */
  type?: string
}
/** A list whose items are themselves one of several kinds (bloc items). */
interface OneOf {
  oneOf: Record<string, Shape>
}

const action: Shape = { fields: { action: null, label: null, value: null } }
const option: Shape = { fields: { label: null, value: null } }
const card = (type?: string): Shape => ({
  type,
  fields: { title: null, subtitle: null, imageUrl: null, actions: [action] },
})
const leaf = (type: string, ...fields: string[]): Shape => ({
  type,
  fields: Object.fromEntries(fields.map((field) => [field, null])),
})

const blocKinds = {
  text: leaf('text', 'text'),
  markdown: leaf('markdown', 'markdown'),
  image: leaf('image', 'imageUrl'),
  audio: leaf('audio', 'audioUrl'),
  video: leaf('video', 'videoUrl'),
  file: leaf('file', 'fileUrl', 'title'),
  location: leaf('location', 'latitude', 'longitude', 'address', 'title'),
}

export const payloadKinds: Record<string, Shape> = {
  ...blocKinds,
  card: card('card'),
  carousel: { type: 'carousel', fields: { items: [card('card')] } },
  choice: { type: 'choice', fields: { text: null, options: [option] } },
  dropdown: { type: 'dropdown', fields: { text: null, options: [option] } },
  bloc: { type: 'bloc', fields: { items: [{ oneOf: blocKinds }] } },
}

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value)

function toInputLevel(shape: Shape, json: Json): Json {
  const input: Json = {}
  const extra: Json = {}
  for (const [key, value] of Object.entries(json)) {
    if (key === 'type' && shape.type !== undefined) continue
    if (!(key in shape.fields)) {
      extra[key] = value
      continue
    }
    const nested = shape.fields[key]
    const item = Array.isArray(nested) ? nested[0] : undefined
    input[key] = item && Array.isArray(value) ? value.map((v) => toInputItem(item, v)) : value
  }
  if (Object.keys(extra).length > 0) input.extra = extra
  return input
}

function toInputItem(item: Shape | OneOf, value: unknown): unknown {
  if (!isObject(value)) return value
  if ('oneOf' in item) return toOneOf(item.oneOf, value)
  return toInputLevel(item, value)
}

function toOneOf(kinds: Record<string, Shape>, json: Json): unknown {
  // A missing or unknown kind is passed on for GraphQL to refuse, named after what was sent.
  if (typeof json.type !== 'string') return json
  const kind = kinds[json.type]
  if (!kind) return { [json.type]: Object.fromEntries(Object.entries(json).filter(([key]) => key !== 'type')) }
  return { [json.type]: toInputLevel(kind, json) }
}

/** The Chat API payload JSON as a MessagePayloadInput value (what the REST layer sends). */
export const payloadToInput = (payload: unknown): unknown => (isObject(payload) ? toOneOf(payloadKinds, payload) : payload)

function fromInputLevel(shape: Shape, input: Json): Json {
  const json: Json = shape.type === undefined ? {} : { type: shape.type }
  for (const [key, nested] of Object.entries(shape.fields)) {
    const value = input[key]
    if (value === undefined || value === null) continue
    const item = Array.isArray(nested) ? nested[0] : undefined
    json[key] = item && Array.isArray(value) ? value.map((v) => fromInputItem(item, v as Json)) : value
  }
  for (const [key, value] of Object.entries(isObject(input.extra) ? input.extra : {})) {
    if (!(key in json)) json[key] = value
  }
  return json
}

function fromInputItem(item: Shape | OneOf, value: Json): Json {
  return 'oneOf' in item ? fromOneOf(item.oneOf, value) : fromInputLevel(item, value)
}

function fromOneOf(kinds: Record<string, Shape>, input: Json): Json {
  const [name, value] = Object.entries(input).find(([, v]) => v !== undefined && v !== null) ?? []
  const kind = name === undefined ? undefined : kinds[name]
  return kind && isObject(value) ? fromInputLevel(kind, value) : {}
}

/** A MessagePayloadInput value as the Chat API payload JSON the domain validates and stores. */
export const payloadFromInput = (input: Json): Json => fromOneOf(payloadKinds, input)

const extra = { description: 'Properties the kind does not name, kept in the stored payload.' }

const CardActionInput = builder.inputType('CardActionInput', {
  subGraphs: ['chat'],
  fields: (t) => ({
    action: t.field({ type: CardActionKind, required: true }),
    label: t.string({ required: true }),
    value: t.string({ required: true }),
    extra: t.field({ type: 'JSONObject', ...extra }),
  }),
})

const ChoiceOptionInput = builder.inputType('ChoiceOptionInput', {
  subGraphs: ['chat'],
  fields: (t) => ({
    label: t.string({ required: true }),
    value: t.string({ required: true }),
    extra: t.field({ type: 'JSONObject', ...extra }),
  }),
})

const CardInput = builder.inputType('CardPayloadInput', {
  subGraphs: ['chat'],
  fields: (t) => ({
    title: t.string({ required: true }),
    subtitle: t.string(),
    imageUrl: t.string(),
    actions: t.field({ type: [CardActionInput], required: true }),
    extra: t.field({ type: 'JSONObject', ...extra }),
  }),
})

const leafInput = (name: string, fields: Record<string, 'String!' | 'String' | 'Float!'>) =>
  builder.inputType(name, {
    subGraphs: ['chat'],
    fields: (t) => ({
      ...Object.fromEntries(
        Object.entries(fields).map(([field, type]) => [
          field,
          type === 'Float!' ? t.float({ required: true }) : t.string({ required: type === 'String!' }),
        ]),
      ),
      extra: t.field({ type: 'JSONObject', ...extra }),
    }),
  })

const TextInput = leafInput('TextPayloadInput', { text: 'String!' })
const MarkdownInput = leafInput('MarkdownPayloadInput', { markdown: 'String!' })
const ImageInput = leafInput('ImagePayloadInput', { imageUrl: 'String!' })
const AudioInput = leafInput('AudioPayloadInput', { audioUrl: 'String!' })
const VideoInput = leafInput('VideoPayloadInput', { videoUrl: 'String!' })
const FileInput = leafInput('FilePayloadInput', { fileUrl: 'String!', title: 'String' })
const LocationInput = leafInput('LocationPayloadInput', {
  latitude: 'Float!',
  longitude: 'Float!',
  address: 'String',
  title: 'String',
})

const blocItemFields = {
  text: TextInput,
  markdown: MarkdownInput,
  image: ImageInput,
  audio: AudioInput,
  video: VideoInput,
  file: FileInput,
  location: LocationInput,
}

const BlocItemInput = builder.inputType('BlocItemInput', {
  subGraphs: ['chat'],
  isOneOf: true,
  description: 'One item of a bloc: exactly one field, named after the item kind.',
  fields: (t) =>
    Object.fromEntries(Object.entries(blocItemFields).map(([name, type]) => [name, t.field({ type })])) as Record<
      keyof typeof blocItemFields,
      ReturnType<typeof t.field>
    >,
})

const CarouselInput = builder.inputType('CarouselPayloadInput', {
  subGraphs: ['chat'],
  fields: (t) => ({
    items: t.field({ type: [CardInput], required: true }),
    extra: t.field({ type: 'JSONObject', ...extra }),
  }),
})

const optionsInput = (name: string) =>
  builder.inputType(name, {
    subGraphs: ['chat'],
    fields: (t) => ({
      text: t.string({ required: true }),
      options: t.field({ type: [ChoiceOptionInput], required: true }),
      extra: t.field({ type: 'JSONObject', ...extra }),
    }),
  })

const BlocInput = builder.inputType('BlocPayloadInput', {
  subGraphs: ['chat'],
  fields: (t) => ({
    items: t.field({ type: [BlocItemInput], required: true }),
    extra: t.field({ type: 'JSONObject', ...extra }),
  }),
})

const payloadFields = {
  ...blocItemFields,
  card: CardInput,
  carousel: CarouselInput,
  choice: optionsInput('ChoicePayloadInput'),
  dropdown: optionsInput('DropdownPayloadInput'),
  bloc: BlocInput,
}

export const MessagePayloadInput = builder.inputType('MessagePayloadInput', {
  subGraphs: ['chat'],
  isOneOf: true,
  description: 'The content of a new message: exactly one field, named after the payload kind.',
  fields: (t) =>
    Object.fromEntries(Object.entries(payloadFields).map(([name, type]) => [name, t.field({ type })])) as Record<
      keyof typeof payloadFields,
      ReturnType<typeof t.field>
    >,
})
