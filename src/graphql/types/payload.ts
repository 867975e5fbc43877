import type { ObjectRef, UnionRef } from '@pothos/core'
import { type Enumeration, type Fields, type Item, type Kind, messagePayload, type ObjectOf, type OneOf } from '../../domain/payload-kinds.ts'
import { type Builder, builder, type Types } from '../builder.ts'

/*
 * The GraphQL output types of the payload table (domain/payload-kinds.ts): one object type per kind
 * (named `<Kind>Payload`, with the kind's `type`) and per nested object, one enum per enumeration,
 * one union per one-of. Each object type reads the stored JSON field by field.
 */

type Json = Record<string, unknown>
type JsonValue = string | number | Json | readonly (string | number | Json)[]
type JsonObjectRef = ObjectRef<Types, Json>

/** The GraphQL name of a kind, a nested object or a one-of; its input type adds `Input`. */
export const typeName = (item: Kind | ObjectOf | OneOf): string =>
  item.is === 'kind' ? `${item.kind.charAt(0).toUpperCase()}${item.kind.slice(1)}Payload` : item.name

/** Builds the type of each table entry once, however many fields use it (cards, choice options). */
export function builtOnce<K extends object, R>(build: (entry: K) => R): (entry: K) => R {
  const built = new Map<K, R>()
  return (entry) => {
    if (!built.has(entry)) built.set(entry, build(entry))
    return built.get(entry) as R
  }
}

const descriptions: Record<string, string> = {
  MessagePayload: 'The content of a message: one member per payload kind, chosen by its `type`.',
}

/**
 * The output types of the payload table, built with `b` (the chat schema's builder, or the agent
 * schema's: the same types in both APIs): its enums and its MessagePayload union.
 */
export function payloadOutputs(b: Builder) {
  const enumRef = builtOnce((enumeration: Enumeration) => b.enumType(enumeration.name, { subGraphs: ['chat'], values: enumeration.values }))

  const objectRef = builtOnce(
    (item: Kind | ObjectOf): JsonObjectRef =>
      b.objectRef<Json>(typeName(item)).implement({
        subGraphs: ['chat'],
        fields: (t) => fieldsOf(t, item.is === 'kind' ? { type: { is: 'string' }, ...item.fields } : item.fields),
      }),
  )

  const unionRef = builtOnce((oneOf: OneOf): UnionRef<Types, Json> => {
    const members = new Map(oneOf.kinds.map((kind) => [kind.kind, objectRef(kind)]))
    return b.unionType(oneOf.name, {
      subGraphs: ['chat'],
      description: descriptions[oneOf.name],
      types: [...members.values()],
      resolveType: (value) => members.get(value.type as string) as JsonObjectRef,
    })
  })

  function outputOf(item: Item) {
    switch (item.is) {
      case 'string':
        return 'String' as const
      case 'float':
        return 'Float' as const
      case 'enum':
        return enumRef(item)
      case 'object':
      case 'kind':
        return objectRef(item)
      case 'oneOf':
        return unionRef(item)
    }
  }

  function fieldsOf(t: FieldBuilder, fields: Fields) {
    return Object.fromEntries(
      Object.entries(fields).map(([name, field]) => [
        name,
        t.field({
          type: field.is === 'list' ? [outputOf(field.of)] : outputOf(field),
          nullable: field.optional === true,
          // The stored payload passed validation against the same table.
          resolve: (value) => value[name] as JsonValue | undefined,
        }),
      ]),
    )
  }

  return { enumRef, MessagePayloadUnion: unionRef(messagePayload) }
}

type FieldBuilder = PothosSchemaTypes.ObjectFieldBuilder<Types, Json>

/** The chat schema's. */
export const { enumRef, MessagePayloadUnion } = payloadOutputs(builder)
