import { Client as ChatClient } from '@botpress/chat'
import { afterEach, describe, expect, it } from 'vitest'
import { iso } from '../helpers/app.ts'
import { agentDesk, botClient, feedMessages } from '../helpers/agents.ts'
import { twoInstances } from '../helpers/instances.ts'
import { eventually } from '../helpers/wait.ts'

/*
 * The agent API's feeds (what the agent console follows) across instances: an agent's console served
 * by instance B hears a conversation handed off, claimed and written in through instance A (one
 * PostgreSQL database, one Redis). Always runs on PostgreSQL (TEST_DATABASE_URL, or 127.0.0.1:5432)
 * and Redis (TEST_REDIS_URL, or 127.0.0.1:6379).
 */

const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

describe('listenQueue and listenMyConversations across instances (Redis)', () => {
  it('an agent following on B hears the handoff, its claim and the user’s message, all made on A', async () => {
    const { a, b, servedA, servedB } = await twoInstances(cleanups)
    const botId = a.tenant?.botId as string
    const onA = agentDesk(servedA.baseUrl)
    const onB = agentDesk(servedB.baseUrl)
    const ada = await onA.createAgent('Ada')
    const bot = await botClient(servedA.baseUrl, botId)
    const alice = await ChatClient.connect({ apiUrl: servedA.apiUrl, userId: 'alice' })
    await alice.createConversation({ id: 'x1' })

    const before = b.app.signals.activeSubscriptions()
    const queue = feedMessages(await onB.listen(ada, '/queue/listen'))
    const mine = feedMessages(await onB.listen(ada, '/conversations/listen'))
    cleanups.push(queue.close, mine.close)
    await eventually(() => expect(b.app.signals.activeSubscriptions()).toBe(before + 2))

    await bot.callAction({ type: 'hitl:startHitl', input: { userId: 'alice', conversationId: 'x1', title: 'Across', messageHistory: [] } })
    expect(await queue.next()).toEqual({ type: 'handoff_changed', botId, conversationId: 'x1', handledBy: 'waiting', title: 'Across' })
    expect(await onA.asAgent(ada, 'POST', `/bots/${botId}/conversations/x1/claim`, {})).toMatchObject({ status: 200 })
    expect(await queue.next()).toEqual({
      type: 'handoff_changed',
      botId,
      conversationId: 'x1',
      handledBy: 'agent',
      agentId: ada.id,
      agentName: 'Ada',
      title: 'Across',
    })
    const { message } = await alice.createMessage({ conversationId: 'x1', payload: { type: 'text', text: 'hello from A' } })
    expect(await mine.next()).toEqual({
      type: 'message_created',
      botId,
      conversationId: 'x1',
      message: { id: message.id, conversationId: 'x1', userId: 'alice', payload: { type: 'text', text: 'hello from A' }, createdAt: iso },
    })
  })
})
