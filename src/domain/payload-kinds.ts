/*
 * The message payload kinds of the Chat API (@botpress/chat models), declared once. Validation
 * (payloads.ts), the TypeScript types below, and the GraphQL output and input types with their
 * conversion to and from the Chat API JSON (graphql/types/payload*.ts) are all derived from this
 * table, so adding a field to a kind is one edit here. Every object is loose: properties a kind
 * does not name are kept.
 */

type Scalar = { readonly is: 'string' } | { readonly is: 'float' }
/** A string from a fixed set, named for GraphQL's enum (the card actions). */
export interface Enumeration {
  readonly is: 'enum'
  readonly name: string
  readonly values: readonly [string, ...string[]]
}
interface List {
  readonly is: 'list'
  readonly of: Item
}
/** A nested object without a `type` of its own (a card action, a choice option). */
export interface ObjectOf {
  readonly is: 'object'
  readonly name: string
  readonly fields: Fields
}
/** A payload kind: an object whose `type` is the kind's name. */
export interface Kind {
  readonly is: 'kind'
  readonly kind: string
  readonly fields: Fields
}
/** One of several kinds, told apart by `type` (a message payload, a bloc item). */
export interface OneOf {
  readonly is: 'oneOf'
  readonly name: string
  readonly kinds: readonly [Kind, ...Kind[]]
}
/** What a list holds: anything but another list. */
export type Item = Scalar | Enumeration | ObjectOf | Kind | OneOf
export type Field = (Item | List) & { readonly optional?: true }
export type Fields = Readonly<Record<string, Field>>

const string = { is: 'string' } as const
const float = { is: 'float' } as const
const optional = <const F extends Field>(field: F) => ({ ...field, optional: true }) as const
const list = <const I extends Item>(of: I) => ({ is: 'list', of }) as const
const enumeration = <const V extends readonly [string, ...string[]]>(name: string, values: V) => ({ is: 'enum', name, values }) as const
const object = <const F extends Fields>(name: string, fields: F) => ({ is: 'object', name, fields }) as const
const kind = <const K extends string, const F extends Fields>(kind: K, fields: F) => ({ is: 'kind', kind, fields }) as const
const oneOf = <const M extends readonly [Kind, ...Kind[]]>(name: string, kinds: M) => ({ is: 'oneOf', name, kinds }) as const

const cardAction = object('CardAction', {
  action: enumeration('CardActionKind', ['postback', 'url', 'say']),
  label: string,
  value: string,
})
const choiceOption = object('ChoiceOption', { label: string, value: string })

const text = kind('text', { text: string })
const markdown = kind('markdown', { markdown: string })
const image = kind('image', { imageUrl: string })
const audio = kind('audio', { audioUrl: string })
const video = kind('video', { videoUrl: string })
const file = kind('file', { fileUrl: string, title: optional(string) })
const location = kind('location', {
  latitude: float,
  longitude: float,
  address: optional(string),
  title: optional(string),
})
const card = kind('card', {
  title: string,
  subtitle: optional(string),
  imageUrl: optional(string),
  actions: list(cardAction),
})
const carousel = kind('carousel', { items: list(card) })
const choice = kind('choice', { text: string, options: list(choiceOption) })
const dropdown = kind('dropdown', { text: string, options: list(choiceOption) })
const blocItem = oneOf('BlocItem', [text, markdown, image, audio, video, file, location])
const bloc = kind('bloc', { items: list(blocItem) })

// The order of the kinds is the order validation errors list them in.
export const messagePayload = oneOf('MessagePayload', [audio, card, carousel, choice, dropdown, file, image, location, markdown, text, video, bloc])

type Simplify<T> = { [K in keyof T]: T[K] } & {}
type IsOptional<F> = F extends { optional: true } ? true : false
type Loose<Fs, Tag = unknown> = Simplify<
  Tag & {
    -readonly [K in keyof Fs as IsOptional<Fs[K]> extends true ? never : K]: ValueOf<Fs[K]>
  } & {
    -readonly [K in keyof Fs as IsOptional<Fs[K]> extends true ? K : never]?: ValueOf<Fs[K]>
  } & { [property: string]: unknown }
>

/** The JSON value a field of the table holds. */
export type ValueOf<F> = F extends { is: 'string' }
  ? string
  : F extends { is: 'float' }
    ? number
    : F extends { is: 'enum'; values: readonly (infer V)[] }
      ? V
      : F extends { is: 'list'; of: infer I }
        ? ValueOf<I>[]
        : F extends { is: 'object'; fields: infer Fs }
          ? Loose<Fs>
          : F extends { is: 'kind'; kind: infer K; fields: infer Fs }
            ? Loose<Fs, { type: K }>
            : F extends { is: 'oneOf'; kinds: readonly (infer M)[] }
              ? ValueOf<M>
              : never
