import type { PayloadKind } from '../../domain/payloads.ts'
import { builder } from '../builder.ts'

// One object type per payload kind of the Chat API; each reads the stored JSON field by field.
interface CardAction {
  action: 'postback' | 'url' | 'say'
  label: string
  value: string
}
interface ChoiceOption {
  label: string
  value: string
}
interface Card {
  type: 'card'
  title: string
  subtitle?: string
  imageUrl?: string
  actions: CardAction[]
}
interface Kinds {
  audio: { type: 'audio'; audioUrl: string }
  video: { type: 'video'; videoUrl: string }
  image: { type: 'image'; imageUrl: string }
  text: { type: 'text'; text: string }
  markdown: { type: 'markdown'; markdown: string }
  file: { type: 'file'; fileUrl: string; title?: string }
  location: { type: 'location'; latitude: number; longitude: number; address?: string; title?: string }
  card: Card
  carousel: { type: 'carousel'; items: Card[] }
  choice: { type: 'choice'; text: string; options: ChoiceOption[] }
  dropdown: { type: 'dropdown'; text: string; options: ChoiceOption[] }
  bloc: { type: 'bloc'; items: Kinds[BlocKind][] }
}
type BlocKind = 'text' | 'markdown' | 'image' | 'audio' | 'video' | 'file' | 'location'
type Kind<K extends PayloadKind> = Kinds[K]

/** A stored payload as the GraphQL types read it. */
export type StoredPayload = Kinds[PayloadKind]

export const CardActionKind = builder.enumType('CardActionKind', {
  subGraphs: ['chat'],
  values: ['postback', 'url', 'say'] as const,
})

const CardActionRef = builder.objectRef<CardAction>('CardAction').implement({
  subGraphs: ['chat'],
  fields: (t) => ({
    action: t.expose('action', { type: CardActionKind }),
    label: t.exposeString('label'),
    value: t.exposeString('value'),
  }),
})

const ChoiceOptionRef = builder.objectRef<ChoiceOption>('ChoiceOption').implement({
  subGraphs: ['chat'],
  fields: (t) => ({ label: t.exposeString('label'), value: t.exposeString('value') }),
})

export const AudioPayload = builder.objectRef<Kind<'audio'>>('AudioPayload').implement({
  subGraphs: ['chat'],
  fields: (t) => ({ type: t.exposeString('type'), audioUrl: t.exposeString('audioUrl') }),
})
export const VideoPayload = builder.objectRef<Kind<'video'>>('VideoPayload').implement({
  subGraphs: ['chat'],
  fields: (t) => ({ type: t.exposeString('type'), videoUrl: t.exposeString('videoUrl') }),
})
export const ImagePayload = builder.objectRef<Kind<'image'>>('ImagePayload').implement({
  subGraphs: ['chat'],
  fields: (t) => ({ type: t.exposeString('type'), imageUrl: t.exposeString('imageUrl') }),
})
export const TextPayload = builder.objectRef<Kind<'text'>>('TextPayload').implement({
  subGraphs: ['chat'],
  fields: (t) => ({ type: t.exposeString('type'), text: t.exposeString('text') }),
})
export const MarkdownPayload = builder.objectRef<Kind<'markdown'>>('MarkdownPayload').implement({
  subGraphs: ['chat'],
  fields: (t) => ({ type: t.exposeString('type'), markdown: t.exposeString('markdown') }),
})
export const FilePayload = builder.objectRef<Kind<'file'>>('FilePayload').implement({
  subGraphs: ['chat'],
  fields: (t) => ({
    type: t.exposeString('type'),
    fileUrl: t.exposeString('fileUrl'),
    title: t.exposeString('title', { nullable: true }),
  }),
})
export const LocationPayload = builder.objectRef<Kind<'location'>>('LocationPayload').implement({
  subGraphs: ['chat'],
  fields: (t) => ({
    type: t.exposeString('type'),
    latitude: t.exposeFloat('latitude'),
    longitude: t.exposeFloat('longitude'),
    address: t.exposeString('address', { nullable: true }),
    title: t.exposeString('title', { nullable: true }),
  }),
})
export const CardPayload = builder.objectRef<Card>('CardPayload').implement({
  subGraphs: ['chat'],
  fields: (t) => ({
    type: t.exposeString('type'),
    title: t.exposeString('title'),
    subtitle: t.exposeString('subtitle', { nullable: true }),
    imageUrl: t.exposeString('imageUrl', { nullable: true }),
    actions: t.expose('actions', { type: [CardActionRef] }),
  }),
})
export const CarouselPayload = builder.objectRef<Kind<'carousel'>>('CarouselPayload').implement({
  subGraphs: ['chat'],
  fields: (t) => ({ type: t.exposeString('type'), items: t.expose('items', { type: [CardPayload] }) }),
})
export const ChoicePayload = builder.objectRef<Kind<'choice'>>('ChoicePayload').implement({
  subGraphs: ['chat'],
  fields: (t) => ({
    type: t.exposeString('type'),
    text: t.exposeString('text'),
    options: t.expose('options', { type: [ChoiceOptionRef] }),
  }),
})
export const DropdownPayload = builder.objectRef<Kind<'dropdown'>>('DropdownPayload').implement({
  subGraphs: ['chat'],
  fields: (t) => ({
    type: t.exposeString('type'),
    text: t.exposeString('text'),
    options: t.expose('options', { type: [ChoiceOptionRef] }),
  }),
})

const blocItemTypes = {
  text: TextPayload,
  markdown: MarkdownPayload,
  image: ImagePayload,
  audio: AudioPayload,
  video: VideoPayload,
  file: FilePayload,
  location: LocationPayload,
} as const

export const BlocItem = builder.unionType('BlocItem', {
  subGraphs: ['chat'],
  types: Object.values(blocItemTypes),
  resolveType: (item) => blocItemTypes[item.type],
})

export const BlocPayload = builder.objectRef<Kind<'bloc'>>('BlocPayload').implement({
  subGraphs: ['chat'],
  fields: (t) => ({ type: t.exposeString('type'), items: t.expose('items', { type: [BlocItem] }) }),
})

const payloadTypes = {
  ...blocItemTypes,
  card: CardPayload,
  carousel: CarouselPayload,
  choice: ChoicePayload,
  dropdown: DropdownPayload,
  bloc: BlocPayload,
} as const

export const MessagePayloadUnion = builder.unionType('MessagePayload', {
  subGraphs: ['chat'],
  description: 'The content of a message: one member per payload kind, chosen by its `type`.',
  types: Object.values(payloadTypes),
  resolveType: (payload: StoredPayload) => payloadTypes[payload.type],
})
