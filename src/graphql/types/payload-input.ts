import type { InputObjectRef } from '@pothos/core'
import { type Field, type Fields, type Item, type Kind, messagePayload, type ObjectOf, type OneOf } from '../../domain/payload-kinds.ts'
import { builder, type Types } from '../builder.ts'
import { builtOnce, enumRef, typeName } from './payload.ts'

/*
 * The payload of createMessage as a @oneOf input, derived from the payload table
 * (domain/payload-kinds.ts): one field per kind, so that a typed client sends exactly one kind.
 * Every object level has an `extra` JSON object for the properties its kind does not name, which
 * the Chat API keeps; `payloadFromInput` and `payloadToInput` convert between this input and the
 * Chat API's `{type, …}` JSON, keeping `type` and the known fields first (in table order) and the
 * extras after them.
 */

type Json = Record<string, unknown>
type FieldBuilder = PothosSchemaTypes.InputFieldBuilder<Types, 'InputObject'>

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value)

interface Conversion {
  level(level: Kind | ObjectOf, json: Json): Json
  oneOf(oneOf: OneOf, json: Json): unknown
}

/** Converts the objects inside a value as its field declares them; anything else passes as is for GraphQL to refuse. */
function convert(field: Field, value: unknown, conversion: Conversion): unknown {
  if (field.is === 'list') {
    return Array.isArray(value) ? value.map((each) => convert(field.of, each, conversion)) : value
  }
  if (!isObject(value)) return value
  if (field.is === 'object' || field.is === 'kind') return conversion.level(field, value)
  if (field.is === 'oneOf') return conversion.oneOf(field, value)
  return value
}

const toInput: Conversion = {
  level(level, json) {
    const known: [string, unknown][] = []
    const extra: [string, unknown][] = []
    for (const [key, value] of Object.entries(json)) {
      if (key === 'type' && level.is === 'kind') continue
      const field = Object.hasOwn(level.fields, key) ? level.fields[key] : undefined
      if (field) known.push([key, convert(field, value, toInput)])
      else extra.push([key, value])
    }
    return Object.fromEntries(extra.length > 0 ? [...known, ['extra', Object.fromEntries(extra)]] : known)
  },
  oneOf(oneOf, json) {
    // A missing or unknown kind is passed on for GraphQL to refuse, named after what was sent.
    if (typeof json.type !== 'string') return json
    const kind = oneOf.kinds.find((each) => each.kind === json.type)
    if (!kind) return { [json.type]: Object.fromEntries(Object.entries(json).filter(([key]) => key !== 'type')) }
    return { [json.type]: toInput.level(kind, json) }
  },
}

const fromInput: Conversion = {
  level(level, input) {
    const json: [string, unknown][] = level.is === 'kind' ? [['type', level.kind]] : []
    for (const [key, field] of Object.entries(level.fields)) {
      const value = input[key]
      if (value !== undefined && value !== null) json.push([key, convert(field, value, fromInput)])
    }
    const extra = Object.entries(isObject(input.extra) ? input.extra : {})
    return Object.fromEntries([...json, ...extra.filter(([key]) => !json.some(([name]) => name === key))])
  },
  oneOf(oneOf, input) {
    const [name, value] = Object.entries(input).find(([, v]) => v !== undefined && v !== null) ?? []
    const kind = oneOf.kinds.find((each) => each.kind === name)
    return kind && isObject(value) ? fromInput.level(kind, value) : {}
  },
}

/** The Chat API payload JSON as a MessagePayloadInput value (what the REST layer sends). */
export const payloadToInput = (payload: unknown): unknown => convert(messagePayload, payload, toInput)

/** A MessagePayloadInput value as the Chat API payload JSON the domain validates and stores. */
export const payloadFromInput = (input: Json): Json => fromInput.oneOf(messagePayload, input) as Json

const descriptions: Record<string, string> = {
  MessagePayload: 'The content of a new message: exactly one field, named after the payload kind.',
  BlocItem: 'One item of a bloc: exactly one field, named after the item kind.',
}

type JsonInputRef = InputObjectRef<Types, Json>

const extraDescription = 'Properties the kind does not name, kept in the stored payload.'

const objectInput = builtOnce(
  (level: Kind | ObjectOf): JsonInputRef =>
    builder.inputType(`${typeName(level)}Input`, {
      subGraphs: ['chat'],
      fields: (t) => ({
        ...fieldsOf(t, level.fields),
        extra: t.field({ type: 'JSONObject', description: extraDescription }),
      }),
    }),
)

const oneOfInput = builtOnce(
  (oneOf: OneOf): JsonInputRef =>
    builder.inputType(`${typeName(oneOf)}Input`, {
      subGraphs: ['chat'],
      isOneOf: true,
      description: descriptions[oneOf.name],
      fields: (t) => Object.fromEntries(oneOf.kinds.map((kind) => [kind.kind, t.field({ type: objectInput(kind) })])),
    }),
)

function inputOf(item: Item) {
  switch (item.is) {
    case 'string':
      return 'String' as const
    case 'float':
      return 'Float' as const
    case 'enum':
      return enumRef(item)
    case 'object':
    case 'kind':
      return objectInput(item)
    case 'oneOf':
      return oneOfInput(item)
  }
}

function fieldsOf(t: FieldBuilder, fields: Fields) {
  return Object.fromEntries(
    Object.entries(fields).map(([name, field]) => [
      name,
      t.field({
        type: field.is === 'list' ? [inputOf(field.of)] : inputOf(field),
        required: field.optional !== true,
      }),
    ]),
  )
}

export const MessagePayloadInput = oneOfInput(messagePayload)
