// The chat client's `src/gen/signals`, made at run time from @botpress/chat-api's own signal schemas
// (opapi's exportZodSchemas writes the same schemas to files; dates travel as ISO strings).
import { signalSchemas } from '../../../../chat-api/src/signals'

export const zod = signalSchemas
export type Types = { [K in keyof typeof signalSchemas]: import('zod').infer<(typeof signalSchemas)[K]> }
