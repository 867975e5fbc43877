import { type Json, botApiInputs } from '../../contracts/bot-api-inputs.ts'
import { recordBotLog } from '../bots/admin/logs.ts'
import type { BotApiContext } from './context.ts'
import { parseInput } from './inputs.ts'

/**
 * trackAnalytics (POST /v1/chat/analytics, `{name, count}`, Botpress' analytics plugin): a line of
 * the bot's log (`analytics <name> <+count>`, level info), which the operator reads with getBotLogs
 * and retention prunes with the other lines. Confab keeps no analytics store of its own.
 */
export function trackBotApiAnalytics(ctx: BotApiContext, input: Json): Promise<Json> {
  const { name, count } = parseInput(botApiInputs.trackAnalytics, input)
  return ctx.store.write(async (q) => {
    await recordBotLog(q, { botId: ctx.bot.id, level: 'info', message: `analytics ${name} ${count < 0 ? count : `+${count}`}` })
    return {}
  })
}
