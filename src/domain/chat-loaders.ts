import type DataLoader from 'dataloader'
import type { MessageRow, UserRow } from '../db/schema.ts'
import type { Participation } from '../db/store.ts'
import type { Cursored, PageWindow } from './paging.ts'

/** A page of one conversation's messages or participants. */
export interface PageKey {
  conversationId: string
  window: PageWindow
}

/** A participant as a page lists it: the user, with when it joined the conversation. */
export type Participant = UserRow & { readonly joinedAt: string }

/** The batch loaders of one chat request (made by loaders.ts). */
export interface ChatLoaders {
  user: DataLoader<string, UserRow | undefined>
  participation: DataLoader<string, Participation>
  participants: DataLoader<PageKey, Cursored<Participant>[], string>
  messages: DataLoader<PageKey, Cursored<MessageRow>[], string>
}
