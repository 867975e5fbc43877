import { z } from 'zod'
import { invalidPayload } from './errors.ts'
import { type Field, type Fields, type Kind, messagePayload, type OneOf, type ValueOf } from './payload-kinds.ts'

export type MessagePayload = ValueOf<typeof messagePayload>
export type PayloadKind = MessagePayload['type']
export const payloadKinds: PayloadKind[] = messagePayload.kinds.map((k) => k.kind)

// Loose objects: properties a kind does not name are kept, so a payload reads back as exactly the
// JSON that was written.
const shapeOf = (fields: Fields) => Object.fromEntries(Object.entries(fields).map(([name, field]) => [name, schemaOf(field)]))

const kindSchema = (kind: Kind) => z.looseObject({ type: z.literal(kind.kind), ...shapeOf(kind.fields) })

const oneOfSchema = (oneOf: OneOf) => z.discriminatedUnion('type', oneOf.kinds.map(kindSchema) as [ReturnType<typeof kindSchema>])

function schemaOf(field: Field): z.ZodType {
  const schema = requiredSchemaOf(field)
  return field.optional ? schema.optional() : schema
}

function requiredSchemaOf(field: Field): z.ZodType {
  switch (field.is) {
    case 'string':
      return z.string()
    case 'float':
      return z.number()
    case 'enum':
      return z.enum(field.values)
    case 'list':
      return z.array(schemaOf(field.of))
    case 'object':
      return z.looseObject(shapeOf(field.fields))
    case 'kind':
      return kindSchema(field)
    case 'oneOf':
      return oneOfSchema(field)
  }
}

export const messagePayloadSchema = oneOfSchema(messagePayload)

const describeIssue = (issue: z.core.$ZodIssue) => `${['payload', ...issue.path].join('.')}: ${issue.message}`

/** Checks a payload against its kind and returns it untouched (extra properties included). */
export function parseMessagePayload(payload: unknown): MessagePayload {
  assertJsonDepth(payload, 'payload')
  const result = messagePayloadSchema.safeParse(payload)
  if (!result.success) {
    throw invalidPayload(`invalid message payload: ${result.error.issues.map(describeIssue).join('; ')}`)
  }
  return payload as MessagePayload
}

export const maxJsonDepth = 64

/**
 * Refuses JSON nested deeper than `maxJsonDepth`: such a value is valid JSON but no chat payload
 * needs it, and serialising it would overflow the stack. Iterative, so the check itself cannot.
 */
export function assertJsonDepth(value: unknown, what: string): void {
  const stack: [unknown, number][] = [[value, 1]]
  while (stack.length > 0) {
    const [current, depth] = stack.pop() as [unknown, number]
    if (typeof current !== 'object' || current === null) continue
    if (depth > maxJsonDepth) throw invalidPayload(`${what} is nested deeper than ${maxJsonDepth} levels`)
    for (const child of Object.values(current)) stack.push([child, depth + 1])
  }
}
