/**
 * Confab as a library: `createServer` listens (store, migrations, first tenant, HTTP), `createApp`
 * is the same surface as a fetch function over a store you open. Both take bot `handlers` by name;
 * `echo` answers every bot without url.
 */
export { type App, type AppOptions, createApp } from './app.ts'
export type { BotAnswer, BotContext, BotCustomEvent, BotHandler, BotMessage } from './bots/handler.ts'
export { builtInHandlers } from './bots/handlers.ts'
export type { BootstrapResult } from './bootstrap.ts'
export { type RateLimitRule, type RateLimitRules, rateLimitDefaults } from './config.ts'
export { openStore } from './db/open.ts'
export type { Store } from './db/store.ts'
export type { BotEvent } from './domain/bots/delivery/event.ts'
export type { BotState } from './domain/bots/chat/state.ts'
export { type HostResolver, type OutboundPolicy, outboundPolicy } from './domain/outbound-policy.ts'
export { type ConfabServer, createServer, type ServerOptions } from './server.ts'
export { startTracing } from './tracing/tracing.ts'
