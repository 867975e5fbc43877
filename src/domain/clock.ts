/** ISO 8601 UTC with milliseconds, the one timestamp format stored and returned everywhere. */
export const now = (): string => new Date().toISOString()
