import type DataLoader from 'dataloader'
import type { MessageRow, UserRow } from '../db/schema.ts'
import type { Participation } from '../db/store.ts'
import type { Cursored, PageWindow } from './paging.ts'

/** A page of one conversation's messages or participants. */
export interface PageKey {
  conversationId: string
  window: PageWindow
}

/** The batch loaders of one chat request (made by loaders.ts). */
export interface ChatLoaders {
  user: DataLoader<string, UserRow | undefined>
  participation: DataLoader<string, Participation>
  participants: DataLoader<PageKey, Cursored<UserRow>[], string>
  messages: DataLoader<PageKey, Cursored<MessageRow>[], string>
}
