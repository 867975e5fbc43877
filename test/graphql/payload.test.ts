import { type GraphQLInputObjectType, type GraphQLObjectType, type GraphQLUnionType, isNonNullType } from 'graphql'
import { describe, expect, it } from 'vitest'
import { type Kind, messagePayload, type ObjectOf } from '../../src/domain/payload-kinds.ts'
import { chatSchema } from '../../src/graphql/schema.ts'
import { typeName } from '../../src/graphql/types/payload.ts'
import { payloadFromInput, payloadToInput } from '../../src/graphql/types/payload-input.ts'

// Every kind and nested object of the table, each once.
const levels = new Map<string, Kind | ObjectOf>()
const collect = (level: Kind | ObjectOf) => {
  levels.set(typeName(level), level)
  for (const field of Object.values(level.fields)) {
    const item = field.is === 'list' ? field.of : field
    if (item.is === 'kind' || item.is === 'object') collect(item)
    if (item.is === 'oneOf') item.kinds.forEach(collect)
  }
}
messagePayload.kinds.forEach(collect)

describe('the GraphQL types derived from the payload table', () => {
  it.each([...levels])('%s has every field of the table, nullable exactly when optional', (name, level) => {
    const output = chatSchema.getType(name) as GraphQLObjectType
    const input = chatSchema.getType(`${name}Input`) as GraphQLInputObjectType
    const fields = Object.entries(level.fields)
    const optional = (type: unknown) => !isNonNullType(type)
    expect(Object.keys(output.getFields()).sort()).toEqual([...fields.map(([field]) => field), ...(level.is === 'kind' ? ['type'] : [])].sort())
    expect(Object.keys(input.getFields()).sort()).toEqual([...fields.map(([field]) => field), 'extra'].sort())
    for (const [field, declared] of fields) {
      expect(optional(output.getFields()[field]?.type), `${name}.${field}`).toBe(declared.optional === true)
      expect(optional(input.getFields()[field]?.type), `${name}Input.${field}`).toBe(declared.optional === true)
    }
  })

  it('has one union member and one @oneOf field per kind', () => {
    const union = chatSchema.getType('MessagePayload') as GraphQLUnionType
    const input = chatSchema.getType('MessagePayloadInput') as GraphQLInputObjectType
    expect(input.isOneOf).toBe(true)
    expect(Object.keys(input.getFields()).sort()).toEqual(messagePayload.kinds.map((kind) => kind.kind).sort())
    expect(
      union
        .getTypes()
        .map((type) => type.name)
        .sort(),
    ).toEqual(messagePayload.kinds.map(typeName).sort())
  })
})

describe('payloadToInput and payloadFromInput', () => {
  const card = { type: 'card', title: 'T', actions: [{ note: 1, value: 'v', label: 'L', action: 'say' }], x: true }
  const canonicalCard = '{"type":"card","title":"T","actions":[{"action":"say","label":"L","value":"v","note":1}],"x":true}'
  const payloads = [
    [{ text: 'hi', type: 'text', extra: { nested: [1] } }, '{"type":"text","text":"hi","extra":{"nested":[1]}}'],
    [{ x: null, type: 'carousel', items: [card, card] }, `{"type":"carousel","items":[${canonicalCard},${canonicalCard}],"x":null}`],
    [
      {
        type: 'bloc',
        items: [
          { type: 'location', title: 't', latitude: 1, longitude: 2, z: 'z' },
          { text: 'a', type: 'text' },
        ],
      },
      '{"type":"bloc","items":[{"type":"location","latitude":1,"longitude":2,"title":"t","z":"z"},{"type":"text","text":"a"}]}',
    ],
    [
      { options: [{ value: 'a', label: 'A', color: 'red' }], type: 'dropdown', text: 'Pick' },
      '{"type":"dropdown","text":"Pick","options":[{"label":"A","value":"a","color":"red"}]}',
    ],
  ] as const

  it.each(payloads)('round-trip %j with type, then the fields in table order, then the others', (payload, canonical) => {
    const json = payloadFromInput(payloadToInput(payload) as Record<string, unknown>)
    expect(JSON.stringify(json)).toBe(canonical)
  })

  it('keeps properties named like those of Object.prototype as extras', () => {
    const payload = JSON.parse('{"type":"text","text":"x","constructor":1,"toString":"a","__proto__":{"b":2}}')
    const input = payloadToInput(payload)
    expect(JSON.stringify(input)).toBe('{"text":{"text":"x","extra":{"constructor":1,"toString":"a","__proto__":{"b":2}}}}')
    expect(JSON.stringify(payloadFromInput(input as Record<string, unknown>))).toBe(JSON.stringify(payload))
  })

  it('passes an unknown kind on for GraphQL to refuse, even one named like a property of every object', () => {
    expect(payloadToInput({ type: 'toString', text: 'x' })).toEqual({ toString: { text: 'x' } })
    expect(payloadToInput({ type: 'bloc', items: [{ type: 'constructor' }] })).toEqual({
      bloc: { items: [{ constructor: {} }] },
    })
  })
})
