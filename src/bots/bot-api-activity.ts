/**
 * The bot API calls each bot has under way in this process. A delivery's timeout does not fire
 * while its bot is calling back (an @botpress/sdk bot answers its POST only once its handlers, and
 * the bot API calls they make, are done).
 */
export class BotApiActivity {
  private readonly calls = new Map<string, number>()
  private readonly waiting = new Map<string, (() => void)[]>()

  /** Counts a call of the bot until `work` settles. */
  async during<T>(botId: string, work: () => Promise<T>): Promise<T> {
    this.calls.set(botId, (this.calls.get(botId) ?? 0) + 1)
    try {
      return await work()
    } finally {
      const left = (this.calls.get(botId) ?? 1) - 1
      if (left > 0) this.calls.set(botId, left)
      else {
        this.calls.delete(botId)
        for (const wake of this.waiting.get(botId) ?? []) wake()
        this.waiting.delete(botId)
      }
    }
  }

  busy(botId: string): boolean {
    return this.calls.has(botId)
  }

  /** Resolves once the bot has no call under way. */
  idle(botId: string): Promise<void> {
    if (!this.busy(botId)) return Promise.resolve()
    return new Promise((resolve) => {
      const list = this.waiting.get(botId) ?? []
      list.push(resolve)
      this.waiting.set(botId, list)
    })
  }
}
