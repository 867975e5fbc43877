// Stand-in for @bpinternal/opapi while the chat-api operation and model definitions are loaded (the
// generator itself is not installed here). `schema()` only attaches OpenAPI documentation there; a
// date is rendered as an ISO string on the wire, which is what the generated signal schemas parse.
import { z } from 'zod'

export const schema = <T extends z.ZodTypeAny>(s: T, _meta?: unknown): z.ZodTypeAny => (s instanceof z.ZodDate ? z.string() : s)
export type Parameter = unknown
export type ParametersMap = unknown
