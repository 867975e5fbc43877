/** Polls `condition` (a thrown error counts as not yet) until it holds, or fails after `timeout` ms. */
export async function waitFor(condition: () => Promise<boolean>, timeout: number, explain: () => string): Promise<void> {
  const deadline = Date.now() + timeout
  for (;;) {
    if (await condition().catch(() => false)) return
    if (Date.now() > deadline) throw new Error(explain())
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
