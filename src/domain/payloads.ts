import { z } from 'zod'
import { invalidPayload } from './errors.ts'

// The message payload kinds of the Chat API (@botpress/chat models). Objects are loose: properties
// a kind does not name are kept, so a payload reads back as exactly the JSON that was written.
const text = z.looseObject({ type: z.literal('text'), text: z.string() })
const markdown = z.looseObject({ type: z.literal('markdown'), markdown: z.string() })
const image = z.looseObject({ type: z.literal('image'), imageUrl: z.string() })
const audio = z.looseObject({ type: z.literal('audio'), audioUrl: z.string() })
const video = z.looseObject({ type: z.literal('video'), videoUrl: z.string() })
const file = z.looseObject({ type: z.literal('file'), fileUrl: z.string(), title: z.string().optional() })
const location = z.looseObject({
  type: z.literal('location'),
  latitude: z.number(),
  longitude: z.number(),
  address: z.string().optional(),
  title: z.string().optional(),
})
const cardAction = z.looseObject({
  action: z.enum(['postback', 'url', 'say']),
  label: z.string(),
  value: z.string(),
})
const card = z.looseObject({
  type: z.literal('card'),
  title: z.string(),
  subtitle: z.string().optional(),
  imageUrl: z.string().optional(),
  actions: z.array(cardAction),
})
const carousel = z.looseObject({ type: z.literal('carousel'), items: z.array(card) })
const option = z.looseObject({ label: z.string(), value: z.string() })
const choice = z.looseObject({ type: z.literal('choice'), text: z.string(), options: z.array(option) })
const dropdown = z.looseObject({ type: z.literal('dropdown'), text: z.string(), options: z.array(option) })
const blocItem = z.discriminatedUnion('type', [text, markdown, image, audio, video, file, location])
const bloc = z.looseObject({ type: z.literal('bloc'), items: z.array(blocItem) })

export const messagePayloadSchema = z.discriminatedUnion('type', [
  audio,
  card,
  carousel,
  choice,
  dropdown,
  file,
  image,
  location,
  markdown,
  text,
  video,
  bloc,
])

export type MessagePayload = z.infer<typeof messagePayloadSchema>
export type PayloadKind = MessagePayload['type']
export const payloadKinds = messagePayloadSchema.options.map((o) => o.shape.type.value) as PayloadKind[]

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
