/* eslint-disable */
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
export type Maybe<T> = T | null;
export type InputMaybe<T> = T | null | undefined;
export type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
export type MakeOptional<T, K extends keyof T> = Omit<T, K> & { [SubKey in K]?: Maybe<T[SubKey]> };
export type MakeMaybe<T, K extends keyof T> = Omit<T, K> & { [SubKey in K]: Maybe<T[SubKey]> };
export type MakeEmpty<T extends { [key: string]: unknown }, K extends keyof T> = { [_ in K]?: never };
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
/** All built-in and custom scalars, mapped to their actual values */
export type Scalars = {
  ID: { input: string; output: string; }
  String: { input: string; output: string; }
  Boolean: { input: boolean; output: boolean; }
  Int: { input: number; output: number; }
  Float: { input: number; output: number; }
  /** A date-time string at UTC, such as 2007-12-03T10:15:30Z, compliant with the `date-time` format outlined in section 5.6 of the RFC 3339 profile of the ISO 8601 standard for representation of dates and times using the Gregorian calendar. */
  DateTime: { input: string; output: string; }
  /** The `JSONObject` scalar type represents JSON objects as specified by [ECMA-404](http://www.ecma-international.org/publications/files/ECMA-ST/ECMA-404.pdf). */
  JSONObject: { input: Record<string, unknown>; output: Record<string, unknown>; }
};

export type AddMessageFeedbackInput = {
  comment?: InputMaybe<Scalars['String']['input']>;
  /** The message id. */
  id: Scalars['String']['input'];
  /** "positive" or "negative". */
  value: Scalars['String']['input'];
};

export type AddMessageFeedbackPayload = {
  __typename?: 'AddMessageFeedbackPayload';
  message: Message;
};

export type AddParticipantInput = {
  conversationId: Scalars['String']['input'];
  userId: Scalars['String']['input'];
};

export type AddParticipantPayload = {
  __typename?: 'AddParticipantPayload';
  participant: User;
};

export type AudioPayload = {
  __typename?: 'AudioPayload';
  audioUrl: Scalars['String']['output'];
  type: Scalars['String']['output'];
};

export type AudioPayloadInput = {
  audioUrl: Scalars['String']['input'];
  /** Properties the kind does not name, kept in the stored payload. */
  extra?: InputMaybe<Scalars['JSONObject']['input']>;
};

export type BlocItem = AudioPayload | FilePayload | ImagePayload | LocationPayload | MarkdownPayload | TextPayload | VideoPayload;

/** One item of a bloc: exactly one field, named after the item kind. */
export type BlocItemInput =
  { audio: AudioPayloadInput; file?: never; image?: never; location?: never; markdown?: never; text?: never; video?: never; }
  |  { audio?: never; file: FilePayloadInput; image?: never; location?: never; markdown?: never; text?: never; video?: never; }
  |  { audio?: never; file?: never; image: ImagePayloadInput; location?: never; markdown?: never; text?: never; video?: never; }
  |  { audio?: never; file?: never; image?: never; location: LocationPayloadInput; markdown?: never; text?: never; video?: never; }
  |  { audio?: never; file?: never; image?: never; location?: never; markdown: MarkdownPayloadInput; text?: never; video?: never; }
  |  { audio?: never; file?: never; image?: never; location?: never; markdown?: never; text: TextPayloadInput; video?: never; }
  |  { audio?: never; file?: never; image?: never; location?: never; markdown?: never; text?: never; video: VideoPayloadInput; };

export type BlocPayload = {
  __typename?: 'BlocPayload';
  items: Array<BlocItem>;
  type: Scalars['String']['output'];
};

export type BlocPayloadInput = {
  /** Properties the kind does not name, kept in the stored payload. */
  extra?: InputMaybe<Scalars['JSONObject']['input']>;
  items: Array<BlocItemInput>;
};

export type CardAction = {
  __typename?: 'CardAction';
  action: CardActionKind;
  label: Scalars['String']['output'];
  value: Scalars['String']['output'];
};

export type CardActionInput = {
  action: CardActionKind;
  /** Properties the kind does not name, kept in the stored payload. */
  extra?: InputMaybe<Scalars['JSONObject']['input']>;
  label: Scalars['String']['input'];
  value: Scalars['String']['input'];
};

export type CardActionKind =
  | 'postback'
  | 'say'
  | 'url';

export type CardPayload = {
  __typename?: 'CardPayload';
  actions: Array<CardAction>;
  imageUrl?: Maybe<Scalars['String']['output']>;
  subtitle?: Maybe<Scalars['String']['output']>;
  title: Scalars['String']['output'];
  type: Scalars['String']['output'];
};

export type CardPayloadInput = {
  actions: Array<CardActionInput>;
  /** Properties the kind does not name, kept in the stored payload. */
  extra?: InputMaybe<Scalars['JSONObject']['input']>;
  imageUrl?: InputMaybe<Scalars['String']['input']>;
  subtitle?: InputMaybe<Scalars['String']['input']>;
  title: Scalars['String']['input'];
};

export type CarouselPayload = {
  __typename?: 'CarouselPayload';
  items: Array<CardPayload>;
  type: Scalars['String']['output'];
};

export type CarouselPayloadInput = {
  /** Properties the kind does not name, kept in the stored payload. */
  extra?: InputMaybe<Scalars['JSONObject']['input']>;
  items: Array<CardPayloadInput>;
};

export type ChoiceOption = {
  __typename?: 'ChoiceOption';
  label: Scalars['String']['output'];
  value: Scalars['String']['output'];
};

export type ChoiceOptionInput = {
  /** Properties the kind does not name, kept in the stored payload. */
  extra?: InputMaybe<Scalars['JSONObject']['input']>;
  label: Scalars['String']['input'];
  value: Scalars['String']['input'];
};

export type ChoicePayload = {
  __typename?: 'ChoicePayload';
  options: Array<ChoiceOption>;
  text: Scalars['String']['output'];
  type: Scalars['String']['output'];
};

export type ChoicePayloadInput = {
  /** Properties the kind does not name, kept in the stored payload. */
  extra?: InputMaybe<Scalars['JSONObject']['input']>;
  options: Array<ChoiceOptionInput>;
  text: Scalars['String']['input'];
};

/** A conversation between users and the bot; only its participants can see it. */
export type Conversation = Node & {
  __typename?: 'Conversation';
  /** The participant the agent who holds the conversation posts as (its name is the agent’s); null unless handledBy is `agent`. */
  agentUserId?: Maybe<Scalars['String']['output']>;
  /** The conversation id of the Chat API. */
  conversationId: Scalars['String']['output'];
  createdAt: Scalars['DateTime']['output'];
  handledBy: HandledBy;
  id: Scalars['ID']['output'];
  /** The newest message, or null when there is none yet. The conversations of a page read theirs together (one statement). */
  lastMessage?: Maybe<Message>;
  /** The messages, newest first. */
  messages: ConversationMessagesConnection;
  /** The user who created the conversation. */
  owner: User;
  /** One participant; an error if the user does not participate. */
  participant: User;
  /** The participants, in the order they joined. */
  participants: ConversationParticipantsConnection;
  updatedAt: Scalars['DateTime']['output'];
};


/** A conversation between users and the bot; only its participants can see it. */
export type ConversationMessagesArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  before?: InputMaybe<Scalars['String']['input']>;
  first?: InputMaybe<Scalars['Int']['input']>;
  last?: InputMaybe<Scalars['Int']['input']>;
};


/** A conversation between users and the bot; only its participants can see it. */
export type ConversationParticipantArgs = {
  userId: Scalars['String']['input'];
};


/** A conversation between users and the bot; only its participants can see it. */
export type ConversationParticipantsArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  before?: InputMaybe<Scalars['String']['input']>;
  first?: InputMaybe<Scalars['Int']['input']>;
  last?: InputMaybe<Scalars['Int']['input']>;
};

export type ConversationMessagesConnection = {
  __typename?: 'ConversationMessagesConnection';
  edges: Array<ConversationMessagesConnectionEdge>;
  pageInfo: PageInfo;
};

export type ConversationMessagesConnectionEdge = {
  __typename?: 'ConversationMessagesConnectionEdge';
  cursor: Scalars['String']['output'];
  node: Message;
};

export type ConversationParticipantsConnection = {
  __typename?: 'ConversationParticipantsConnection';
  edges: Array<ConversationParticipantsConnectionEdge>;
  pageInfo: PageInfo;
};

export type ConversationParticipantsConnectionEdge = {
  __typename?: 'ConversationParticipantsConnectionEdge';
  cursor: Scalars['String']['output'];
  /** When the participant joined the conversation. */
  joinedAt: Scalars['DateTime']['output'];
  node: User;
};

/** Something that happened in a conversation: the signals of the Chat API (its five, and 1.x's message streams), and the web chat's message_updated, message_status_changed, typing_started and typing_stopped. */
export type ConversationSignal = EventCreatedSignal | MessageCreatedSignal | MessageDeletedSignal | MessageStatusChangedSignal | MessageStreamAbortSignal | MessageStreamCompleteSignal | MessageStreamDeltaSignal | MessageUpdatedSignal | ParticipantAddedSignal | ParticipantRemovedSignal | ResyncSignal | TypingStartedSignal | TypingStoppedSignal;

export type CreateConversationInput = {
  /** A chosen id (1-64 of [A-Za-z0-9._:-]); generated when absent. */
  id?: InputMaybe<Scalars['String']['input']>;
};

export type CreateConversationPayload = {
  __typename?: 'CreateConversationPayload';
  conversation: Conversation;
};

export type CreateEventInput = {
  /** The official web chat's flag; accepted, events are always of their conversation. */
  bindConversation?: InputMaybe<Scalars['Boolean']['input']>;
  /** The official web chat's flag; accepted, events are always of their user. */
  bindUser?: InputMaybe<Scalars['Boolean']['input']>;
  conversationId: Scalars['String']['input'];
  payload: Scalars['JSONObject']['input'];
};

export type CreateEventPayload = {
  __typename?: 'CreateEventPayload';
  event: Event;
};

export type CreateFileInput = {
  /** The web chat's; files are always readable by their URL. */
  accessPolicies?: InputMaybe<Array<Scalars['String']['input']>>;
  /** Accepted; the content type is always the one the extension says. */
  contentType?: InputMaybe<Scalars['String']['input']>;
  /** The web chat's; accepted, files last as long as their user or conversation. */
  expiresAt?: InputMaybe<Scalars['String']['input']>;
  /** The web chat's; accepted, nothing is indexed. */
  index?: InputMaybe<Scalars['Boolean']['input']>;
  /** The file name; its extension gives the content type. */
  key: Scalars['String']['input'];
  /** In bytes, at most 1 MB (1,048,576). */
  size: Scalars['Int']['input'];
  /** `conversation`: the conversation it is for (the file goes with it). */
  tags?: InputMaybe<Scalars['JSONObject']['input']>;
};

export type CreateFilePayload = {
  __typename?: 'CreateFilePayload';
  file: File;
};

export type CreateMessageInput = {
  conversationId: Scalars['String']['input'];
  /** Free-form data kept beside the payload. */
  metadata?: InputMaybe<Scalars['JSONObject']['input']>;
  /** Exactly one payload kind. */
  payload: MessagePayloadInput;
};

export type CreateMessagePayload = {
  __typename?: 'CreateMessagePayload';
  message: Message;
};

export type CreateUserInput = {
  /** A chosen id (1-64 of [A-Za-z0-9._:-]); generated when absent. */
  id?: InputMaybe<Scalars['String']['input']>;
  name?: InputMaybe<Scalars['String']['input']>;
  pictureUrl?: InputMaybe<Scalars['String']['input']>;
  profile?: InputMaybe<Scalars['String']['input']>;
};

export type CreateUserPayload = {
  __typename?: 'CreateUserPayload';
  /** The x-user-key of the new user. */
  key: Scalars['String']['output'];
  user: User;
};

export type DeleteConversationInput = {
  id: Scalars['String']['input'];
};

export type DeleteConversationPayload = {
  __typename?: 'DeleteConversationPayload';
  conversationId: Scalars['String']['output'];
};

export type DeleteMessageInput = {
  id: Scalars['String']['input'];
};

export type DeleteMessagePayload = {
  __typename?: 'DeleteMessagePayload';
  messageId: Scalars['String']['output'];
};

export type DeleteUserPayload = {
  __typename?: 'DeleteUserPayload';
  userId: Scalars['String']['output'];
};

export type DropdownPayload = {
  __typename?: 'DropdownPayload';
  options: Array<ChoiceOption>;
  text: Scalars['String']['output'];
  type: Scalars['String']['output'];
};

export type DropdownPayloadInput = {
  /** Properties the kind does not name, kept in the stored payload. */
  extra?: InputMaybe<Scalars['JSONObject']['input']>;
  options: Array<ChoiceOptionInput>;
  text: Scalars['String']['input'];
};

/** A custom event: a free-form payload posted in a conversation. */
export type Event = Node & {
  __typename?: 'Event';
  conversation: Conversation;
  conversationId: Scalars['String']['output'];
  createdAt: Scalars['DateTime']['output'];
  /** The event id of the Chat API. */
  eventId: Scalars['String']['output'];
  id: Scalars['ID']['output'];
  payload: Scalars['JSONObject']['output'];
  user: User;
  userId: Scalars['String']['output'];
};

export type EventCreatedSignal = {
  __typename?: 'EventCreatedSignal';
  event: Event;
  /** Whether the bot created the event. */
  isBot: Scalars['Boolean']['output'];
  /** The signal's place in the conversation's log, for `since` when listening again; null for a transient signal (typing, streams, statuses). Opaque. */
  signalId?: Maybe<Scalars['String']['output']>;
  type: Scalars['String']['output'];
};

/** A file a user uploads (up to 1 MB): PUT its bytes once to uploadUrl, then anyone holding url can read them. */
export type File = {
  __typename?: 'File';
  /** What its name's extension says. */
  contentType: Scalars['String']['output'];
  createdAt: Scalars['DateTime']['output'];
  fileId: Scalars['String']['output'];
  /** The name the uploader gave it. */
  key: Scalars['String']['output'];
  /** In bytes. */
  size: Scalars['Int']['output'];
  /** Where to PUT its bytes: signed, good for 15 minutes, once. */
  uploadUrl: Scalars['String']['output'];
  /** Where its bytes are served: signed and unguessable, it needs no header. */
  url: Scalars['String']['output'];
};

export type FilePayload = {
  __typename?: 'FilePayload';
  fileUrl: Scalars['String']['output'];
  title?: Maybe<Scalars['String']['output']>;
  type: Scalars['String']['output'];
};

export type FilePayloadInput = {
  /** Properties the kind does not name, kept in the stored payload. */
  extra?: InputMaybe<Scalars['JSONObject']['input']>;
  fileUrl: Scalars['String']['input'];
  title?: InputMaybe<Scalars['String']['input']>;
};

export type GenerateUserKeyInput = {
  /** When the key expires, in milliseconds since the epoch; never when absent. */
  expiresAt?: InputMaybe<Scalars['Float']['input']>;
  /** The user the key acts for. */
  id: Scalars['String']['input'];
};

export type GenerateUserKeyPayload = {
  __typename?: 'GenerateUserKeyPayload';
  key: Scalars['String']['output'];
};

export type GetOrCreateConversationInput = {
  id: Scalars['String']['input'];
};

export type GetOrCreateConversationPayload = {
  __typename?: 'GetOrCreateConversationPayload';
  conversation: Conversation;
};

export type GetOrCreateUserInput = {
  name?: InputMaybe<Scalars['String']['input']>;
  pictureUrl?: InputMaybe<Scalars['String']['input']>;
  profile?: InputMaybe<Scalars['String']['input']>;
};

export type GetOrCreateUserPayload = {
  __typename?: 'GetOrCreateUserPayload';
  user: User;
};

/** Who answers the user of a conversation. */
export type HandledBy =
  /** A person (an agent) holds it; the user’s messages do not reach the bot. */
  | 'agent'
  /** The bot (the default). */
  | 'bot'
  /** Closed by an agent; the bot answers again. */
  | 'closed'
  /** Nobody yet: the conversation waits in the queue for an agent. */
  | 'waiting';

export type ImagePayload = {
  __typename?: 'ImagePayload';
  imageUrl: Scalars['String']['output'];
  type: Scalars['String']['output'];
};

export type ImagePayloadInput = {
  /** Properties the kind does not name, kept in the stored payload. */
  extra?: InputMaybe<Scalars['JSONObject']['input']>;
  imageUrl: Scalars['String']['input'];
};

/** The official web chat's first message: its conversation as it stands, and who the caller is. */
export type InitSignal = {
  __typename?: 'InitSignal';
  conversation: Conversation;
  /** The latest messages, newest first. */
  messages: Array<Message>;
  /** In the order they joined. */
  participants: Array<User>;
  type: Scalars['String']['output'];
  user: User;
  /** The caller's x-user-key (a new user's, when none was sent). */
  userKey: Scalars['String']['output'];
};

export type LocationPayload = {
  __typename?: 'LocationPayload';
  address?: Maybe<Scalars['String']['output']>;
  latitude: Scalars['Float']['output'];
  longitude: Scalars['Float']['output'];
  title?: Maybe<Scalars['String']['output']>;
  type: Scalars['String']['output'];
};

export type LocationPayloadInput = {
  address?: InputMaybe<Scalars['String']['input']>;
  /** Properties the kind does not name, kept in the stored payload. */
  extra?: InputMaybe<Scalars['JSONObject']['input']>;
  latitude: Scalars['Float']['input'];
  longitude: Scalars['Float']['input'];
  title?: InputMaybe<Scalars['String']['input']>;
};

export type MarkdownPayload = {
  __typename?: 'MarkdownPayload';
  markdown: Scalars['String']['output'];
  type: Scalars['String']['output'];
};

export type MarkdownPayloadInput = {
  /** Properties the kind does not name, kept in the stored payload. */
  extra?: InputMaybe<Scalars['JSONObject']['input']>;
  markdown: Scalars['String']['input'];
};

/** A message a user or the bot posted in a conversation. */
export type Message = Node & {
  __typename?: 'Message';
  author: User;
  conversation: Conversation;
  conversationId: Scalars['String']['output'];
  createdAt: Scalars['DateTime']['output'];
  feedback?: Maybe<MessageFeedback>;
  id: Scalars['ID']['output'];
  /** The message id of the Chat API. */
  messageId: Scalars['String']['output'];
  metadata?: Maybe<Scalars['JSONObject']['output']>;
  payload: MessagePayload;
  /** The payload exactly as it was written, with the properties its kind does not name. */
  rawPayload: Scalars['JSONObject']['output'];
  /** The author. */
  userId: Scalars['String']['output'];
};

export type MessageCreatedSignal = {
  __typename?: 'MessageCreatedSignal';
  /** Whether the bot posted the message. */
  isBot: Scalars['Boolean']['output'];
  message: Message;
  /** The signal's place in the conversation's log, for `since` when listening again; null for a transient signal (typing, streams, statuses). Opaque. */
  signalId?: Maybe<Scalars['String']['output']>;
  type: Scalars['String']['output'];
};

export type MessageDeletedSignal = {
  __typename?: 'MessageDeletedSignal';
  conversationId: Scalars['String']['output'];
  messageId: Scalars['String']['output'];
  /** The signal's place in the conversation's log, for `since` when listening again; null for a transient signal (typing, streams, statuses). Opaque. */
  signalId?: Maybe<Scalars['String']['output']>;
  type: Scalars['String']['output'];
  /** The author of the deleted message. */
  userId: Scalars['String']['output'];
};

/** A user's feedback on a message (the web chat's thumbs up or down). */
export type MessageFeedback = {
  __typename?: 'MessageFeedback';
  comment?: Maybe<Scalars['String']['output']>;
  /** "positive" or "negative". */
  value: Scalars['String']['output'];
};

/** The content of a message: one member per payload kind, chosen by its `type`. */
export type MessagePayload = AudioPayload | BlocPayload | CardPayload | CarouselPayload | ChoicePayload | DropdownPayload | FilePayload | ImagePayload | LocationPayload | MarkdownPayload | TextPayload | VideoPayload;

/** The content of a new message: exactly one field, named after the payload kind. */
export type MessagePayloadInput =
  { audio: AudioPayloadInput; bloc?: never; card?: never; carousel?: never; choice?: never; dropdown?: never; file?: never; image?: never; location?: never; markdown?: never; text?: never; video?: never; }
  |  { audio?: never; bloc: BlocPayloadInput; card?: never; carousel?: never; choice?: never; dropdown?: never; file?: never; image?: never; location?: never; markdown?: never; text?: never; video?: never; }
  |  { audio?: never; bloc?: never; card: CardPayloadInput; carousel?: never; choice?: never; dropdown?: never; file?: never; image?: never; location?: never; markdown?: never; text?: never; video?: never; }
  |  { audio?: never; bloc?: never; card?: never; carousel: CarouselPayloadInput; choice?: never; dropdown?: never; file?: never; image?: never; location?: never; markdown?: never; text?: never; video?: never; }
  |  { audio?: never; bloc?: never; card?: never; carousel?: never; choice: ChoicePayloadInput; dropdown?: never; file?: never; image?: never; location?: never; markdown?: never; text?: never; video?: never; }
  |  { audio?: never; bloc?: never; card?: never; carousel?: never; choice?: never; dropdown: DropdownPayloadInput; file?: never; image?: never; location?: never; markdown?: never; text?: never; video?: never; }
  |  { audio?: never; bloc?: never; card?: never; carousel?: never; choice?: never; dropdown?: never; file: FilePayloadInput; image?: never; location?: never; markdown?: never; text?: never; video?: never; }
  |  { audio?: never; bloc?: never; card?: never; carousel?: never; choice?: never; dropdown?: never; file?: never; image: ImagePayloadInput; location?: never; markdown?: never; text?: never; video?: never; }
  |  { audio?: never; bloc?: never; card?: never; carousel?: never; choice?: never; dropdown?: never; file?: never; image?: never; location: LocationPayloadInput; markdown?: never; text?: never; video?: never; }
  |  { audio?: never; bloc?: never; card?: never; carousel?: never; choice?: never; dropdown?: never; file?: never; image?: never; location?: never; markdown: MarkdownPayloadInput; text?: never; video?: never; }
  |  { audio?: never; bloc?: never; card?: never; carousel?: never; choice?: never; dropdown?: never; file?: never; image?: never; location?: never; markdown?: never; text: TextPayloadInput; video?: never; }
  |  { audio?: never; bloc?: never; card?: never; carousel?: never; choice?: never; dropdown?: never; file?: never; image?: never; location?: never; markdown?: never; text?: never; video: VideoPayloadInput; };

/** How the bot's handling of a user's message goes: processing, then processed or failed. */
export type MessageStatusChangedSignal = {
  __typename?: 'MessageStatusChangedSignal';
  failureReason?: Maybe<Scalars['String']['output']>;
  message: Message;
  newStatus: Scalars['String']['output'];
  oldStatus?: Maybe<Scalars['String']['output']>;
  /** The signal's place in the conversation's log, for `since` when listening again; null for a transient signal (typing, streams, statuses). Opaque. */
  signalId?: Maybe<Scalars['String']['output']>;
  type: Scalars['String']['output'];
};

/** The bot gave its stream up: what its deltas made is to be dropped. */
export type MessageStreamAbortSignal = {
  __typename?: 'MessageStreamAbortSignal';
  conversationId: Scalars['String']['output'];
  /** The signal's place in the conversation's log, for `since` when listening again; null for a transient signal (typing, streams, statuses). Opaque. */
  signalId?: Maybe<Scalars['String']['output']>;
  streamId: Scalars['String']['output'];
  type: Scalars['String']['output'];
};

/** The bot posted its stream's final message (its `metadata.streamId`): comes just before that message's message_created. */
export type MessageStreamCompleteSignal = {
  __typename?: 'MessageStreamCompleteSignal';
  message: Message;
  /** The signal's place in the conversation's log, for `since` when listening again; null for a transient signal (typing, streams, statuses). Opaque. */
  signalId?: Maybe<Scalars['String']['output']>;
  streamId: Scalars['String']['output'];
  type: Scalars['String']['output'];
};

/** A piece of the message the bot is writing (Botpress' chat integration 1.x): not stored; a stream's deltas come in `sequence` order, then its message_stream_complete or message_stream_abort. */
export type MessageStreamDeltaSignal = {
  __typename?: 'MessageStreamDeltaSignal';
  clientMessageId?: Maybe<Scalars['String']['output']>;
  conversationId: Scalars['String']['output'];
  /** As the bot gave it. */
  createdAt: Scalars['String']['output'];
  /** The text to append. */
  delta: Scalars['String']['output'];
  /** The delta's place in its stream, as the bot numbered it. */
  sequence: Scalars['Float']['output'];
  /** The signal's place in the conversation's log, for `since` when listening again; null for a transient signal (typing, streams, statuses). Opaque. */
  signalId?: Maybe<Scalars['String']['output']>;
  streamId: Scalars['String']['output'];
  type: Scalars['String']['output'];
  /** The bot's user id. */
  userId: Scalars['String']['output'];
};

/** A message's payload, metadata or feedback changed. */
export type MessageUpdatedSignal = {
  __typename?: 'MessageUpdatedSignal';
  /** Whether the bot posted the message. */
  isBot: Scalars['Boolean']['output'];
  message: Message;
  /** The signal's place in the conversation's log, for `since` when listening again; null for a transient signal (typing, streams, statuses). Opaque. */
  signalId?: Maybe<Scalars['String']['output']>;
  type: Scalars['String']['output'];
};

export type Mutation = {
  __typename?: 'Mutation';
  /** Sets the feedback of a message of a conversation the caller participates in (replacing any). */
  addMessageFeedback: AddMessageFeedbackPayload;
  /** Adds a user of this chat integration to a conversation the caller participates in. */
  addParticipant: AddParticipantPayload;
  /** Creates a conversation owned by the caller, who becomes its first participant. */
  createConversation: CreateConversationPayload;
  /** Posts a custom event in a conversation the caller participates in. */
  createEvent: CreateEventPayload;
  /** Opens an upload slot for a file of the caller (415 for a type not taken, 413 over 1 MB). */
  createFile: CreateFilePayload;
  /** Posts a message in a conversation the caller participates in. */
  createMessage: CreateMessagePayload;
  /** Creates a user and returns it with a user key signed by the server. Needs no x-user-key; refused (Unauthorized) when the integration has a personal encryption key. */
  createUser: CreateUserPayload;
  /** Deletes a conversation with its messages and events; only its owner may. */
  deleteConversation: DeleteConversationPayload;
  /** Deletes a message; only its author may. */
  deleteMessage: DeleteMessagePayload;
  /** Deletes the user the x-user-key names, the conversations it owns and its messages. */
  deleteUser: DeleteUserPayload;
  /** A user key for an existing user, for the holder of x-admin-secret (the key the integration signs user keys with). */
  generateUserKey: GenerateUserKeyPayload;
  /** Returns the conversation with this id (the caller must participate), creating it if it does not exist. */
  getOrCreateConversation: GetOrCreateConversationPayload;
  /** Returns the user the x-user-key names, creating it with this profile if it does not exist. */
  getOrCreateUser: GetOrCreateUserPayload;
  /** Removes the feedback of a message of a conversation the caller participates in. */
  removeMessageFeedback: RemoveMessageFeedbackPayload;
  /** Removes a participant: any participant may leave, the owner may remove others, no one removes the owner. */
  removeParticipant: RemoveParticipantPayload;
  /** Tells the conversation's other listeners (the web chat's typing indicator) that the caller is typing. */
  startTyping: StartTypingPayload;
  /** Tells the conversation's other listeners that the caller stopped typing. */
  stopTyping: StopTypingPayload;
  /** Replaces a message's payload and metadata; only its author may. */
  updateMessage: UpdateMessagePayload;
  /** Updates the profile fields given (null clears one) of the user the x-user-key names. */
  updateUser: UpdateUserPayload;
};


export type MutationAddMessageFeedbackArgs = {
  input: AddMessageFeedbackInput;
};


export type MutationAddParticipantArgs = {
  input: AddParticipantInput;
};


export type MutationCreateConversationArgs = {
  input: CreateConversationInput;
};


export type MutationCreateEventArgs = {
  input: CreateEventInput;
};


export type MutationCreateFileArgs = {
  input: CreateFileInput;
};


export type MutationCreateMessageArgs = {
  input: CreateMessageInput;
};


export type MutationCreateUserArgs = {
  input: CreateUserInput;
};


export type MutationDeleteConversationArgs = {
  input: DeleteConversationInput;
};


export type MutationDeleteMessageArgs = {
  input: DeleteMessageInput;
};


export type MutationGenerateUserKeyArgs = {
  input: GenerateUserKeyInput;
};


export type MutationGetOrCreateConversationArgs = {
  input: GetOrCreateConversationInput;
};


export type MutationGetOrCreateUserArgs = {
  input: GetOrCreateUserInput;
};


export type MutationRemoveMessageFeedbackArgs = {
  input: RemoveMessageFeedbackInput;
};


export type MutationRemoveParticipantArgs = {
  input: RemoveParticipantInput;
};


export type MutationStartTypingArgs = {
  input: StartTypingInput;
};


export type MutationStopTypingArgs = {
  input: StopTypingInput;
};


export type MutationUpdateMessageArgs = {
  input: UpdateMessageInput;
};


export type MutationUpdateUserArgs = {
  input: UpdateUserInput;
};

export type Node = {
  id: Scalars['ID']['output'];
};

export type PageInfo = {
  __typename?: 'PageInfo';
  endCursor?: Maybe<Scalars['String']['output']>;
  hasNextPage: Scalars['Boolean']['output'];
  hasPreviousPage: Scalars['Boolean']['output'];
  startCursor?: Maybe<Scalars['String']['output']>;
};

export type ParticipantAddedSignal = {
  __typename?: 'ParticipantAddedSignal';
  conversationId: Scalars['String']['output'];
  /** The user who joined, as it was then. */
  participant: User;
  participantId: Scalars['String']['output'];
  /** The signal's place in the conversation's log, for `since` when listening again; null for a transient signal (typing, streams, statuses). Opaque. */
  signalId?: Maybe<Scalars['String']['output']>;
  type: Scalars['String']['output'];
};

export type ParticipantRemovedSignal = {
  __typename?: 'ParticipantRemovedSignal';
  conversationId: Scalars['String']['output'];
  participantId: Scalars['String']['output'];
  /** The signal's place in the conversation's log, for `since` when listening again; null for a transient signal (typing, streams, statuses). Opaque. */
  signalId?: Maybe<Scalars['String']['output']>;
  type: Scalars['String']['output'];
};

export type Query = {
  __typename?: 'Query';
  conversation: Conversation;
  /** The conversations the caller participates in, newest first. */
  conversations: QueryConversationsConnection;
  event: Event;
  /** The user the x-user-key names. */
  me: User;
  message: Message;
  node?: Maybe<Node>;
  nodes: Array<Maybe<Node>>;
};


export type QueryConversationArgs = {
  id: Scalars['String']['input'];
};


export type QueryConversationsArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  before?: InputMaybe<Scalars['String']['input']>;
  first?: InputMaybe<Scalars['Int']['input']>;
  last?: InputMaybe<Scalars['Int']['input']>;
};


export type QueryEventArgs = {
  id: Scalars['String']['input'];
};


export type QueryMessageArgs = {
  id: Scalars['String']['input'];
};


export type QueryNodeArgs = {
  id: Scalars['ID']['input'];
};


export type QueryNodesArgs = {
  ids: Array<Scalars['ID']['input']>;
};

export type QueryConversationsConnection = {
  __typename?: 'QueryConversationsConnection';
  edges: Array<QueryConversationsConnectionEdge>;
  pageInfo: PageInfo;
};

export type QueryConversationsConnectionEdge = {
  __typename?: 'QueryConversationsConnectionEdge';
  cursor: Scalars['String']['output'];
  node: Conversation;
};

export type RemoveMessageFeedbackInput = {
  /** The message id. */
  id: Scalars['String']['input'];
};

export type RemoveMessageFeedbackPayload = {
  __typename?: 'RemoveMessageFeedbackPayload';
  message: Message;
};

export type RemoveParticipantInput = {
  conversationId: Scalars['String']['input'];
  userId: Scalars['String']['input'];
};

export type RemoveParticipantPayload = {
  __typename?: 'RemoveParticipantPayload';
  conversationId: Scalars['String']['output'];
  userId: Scalars['String']['output'];
};

/** Not a Chat API signal: the first a resuming listener hears when what it missed cannot be replayed (its cursor is unknown, older than the log keeps, or too much was missed): read the conversation again. */
export type ResyncSignal = {
  __typename?: 'ResyncSignal';
  conversationId: Scalars['String']['output'];
  /** unknown_cursor, too_old or too_many. */
  reason: Scalars['String']['output'];
  /** The signal's place in the conversation's log, for `since` when listening again; null for a transient signal (typing, streams, statuses). Opaque. */
  signalId?: Maybe<Scalars['String']['output']>;
  type: Scalars['String']['output'];
};

export type StartTypingInput = {
  conversationId: Scalars['String']['input'];
  /** How long the indicator lasts, in milliseconds (5,000 by default, 60,000 at most). */
  timeout?: InputMaybe<Scalars['Int']['input']>;
};

export type StartTypingPayload = {
  __typename?: 'StartTypingPayload';
  conversationId: Scalars['String']['output'];
};

export type StopTypingInput = {
  conversationId: Scalars['String']['input'];
};

export type StopTypingPayload = {
  __typename?: 'StopTypingPayload';
  conversationId: Scalars['String']['output'];
};

export type Subscription = {
  __typename?: 'Subscription';
  /** The live signals of a conversation the caller participates in; ends when the caller is removed or the conversation is deleted. */
  conversationSignals: ConversationSignal;
  /** The official web chat's stream: creates the caller (no x-user-key) and the conversation (none named, or gone) when needed, sends `init`, then the conversation's signals. */
  initialize: WebchatSignal;
};


export type SubscriptionConversationSignalsArgs = {
  conversationId: Scalars['String']['input'];
  includeStatuses?: InputMaybe<Scalars['Boolean']['input']>;
  since?: InputMaybe<Scalars['String']['input']>;
};


export type SubscriptionInitializeArgs = {
  conversationId?: InputMaybe<Scalars['String']['input']>;
};

export type TextPayload = {
  __typename?: 'TextPayload';
  text: Scalars['String']['output'];
  type: Scalars['String']['output'];
};

export type TextPayloadInput = {
  /** Properties the kind does not name, kept in the stored payload. */
  extra?: InputMaybe<Scalars['JSONObject']['input']>;
  text: Scalars['String']['input'];
};

/** A participant started typing; the indicator lasts `timeout` milliseconds unless stopped or renewed. */
export type TypingStartedSignal = {
  __typename?: 'TypingStartedSignal';
  conversationId: Scalars['String']['output'];
  /** The signal's place in the conversation's log, for `since` when listening again; null for a transient signal (typing, streams, statuses). Opaque. */
  signalId?: Maybe<Scalars['String']['output']>;
  timeout: Scalars['Int']['output'];
  type: Scalars['String']['output'];
  userId: Scalars['String']['output'];
};

export type TypingStoppedSignal = {
  __typename?: 'TypingStoppedSignal';
  conversationId: Scalars['String']['output'];
  /** The signal's place in the conversation's log, for `since` when listening again; null for a transient signal (typing, streams, statuses). Opaque. */
  signalId?: Maybe<Scalars['String']['output']>;
  type: Scalars['String']['output'];
  userId: Scalars['String']['output'];
};

export type UpdateMessageInput = {
  id: Scalars['String']['input'];
  metadata?: InputMaybe<Scalars['JSONObject']['input']>;
  /** Exactly one payload kind. */
  payload: MessagePayloadInput;
};

export type UpdateMessagePayload = {
  __typename?: 'UpdateMessagePayload';
  message: Message;
};

export type UpdateUserInput = {
  name?: InputMaybe<Scalars['String']['input']>;
  pictureUrl?: InputMaybe<Scalars['String']['input']>;
  profile?: InputMaybe<Scalars['String']['input']>;
};

export type UpdateUserPayload = {
  __typename?: 'UpdateUserPayload';
  user: User;
};

/** Someone talking to the bot through one chat integration. */
export type User = Node & {
  __typename?: 'User';
  createdAt: Scalars['DateTime']['output'];
  id: Scalars['ID']['output'];
  /** Whether this is the bot's own user. */
  isBot: Scalars['Boolean']['output'];
  name?: Maybe<Scalars['String']['output']>;
  pictureUrl?: Maybe<Scalars['String']['output']>;
  /** Custom profile data, encoded as a string: the user's own, shown to that user only (and the bot's to everyone). */
  profile?: Maybe<Scalars['String']['output']>;
  updatedAt: Scalars['DateTime']['output'];
  /** The user id of the Chat API (what x-user-key names). */
  userId: Scalars['String']['output'];
};

export type VideoPayload = {
  __typename?: 'VideoPayload';
  type: Scalars['String']['output'];
  videoUrl: Scalars['String']['output'];
};

export type VideoPayloadInput = {
  /** Properties the kind does not name, kept in the stored payload. */
  extra?: InputMaybe<Scalars['JSONObject']['input']>;
  videoUrl: Scalars['String']['input'];
};

/** What the official web chat's stream carries: `init`, then the conversation's signals. */
export type WebchatSignal = EventCreatedSignal | InitSignal | MessageCreatedSignal | MessageDeletedSignal | MessageStatusChangedSignal | MessageStreamAbortSignal | MessageStreamCompleteSignal | MessageStreamDeltaSignal | MessageUpdatedSignal | ParticipantAddedSignal | ParticipantRemovedSignal | ResyncSignal | TypingStartedSignal | TypingStoppedSignal;

export type WebChatMessageFragment = { __typename?: 'Message', messageId: string, userId: string, createdAt: string, author: { __typename?: 'User', isBot: boolean, name?: string | null, pictureUrl?: string | null }, payload:
    | { __typename: 'AudioPayload', audioUrl: string }
    | { __typename: 'BlocPayload', blocItems: Array<
        | { __typename: 'AudioPayload', audioUrl: string }
        | { __typename: 'FilePayload', fileUrl: string, fileTitle?: string | null }
        | { __typename: 'ImagePayload', image: string }
        | { __typename: 'LocationPayload', latitude: number, longitude: number, address?: string | null, locationTitle?: string | null }
        | { __typename: 'MarkdownPayload', markdown: string }
        | { __typename: 'TextPayload', text: string }
        | { __typename: 'VideoPayload', videoUrl: string }
      > }
    | { __typename: 'CardPayload', title: string, subtitle?: string | null, cardImage?: string | null, actions: Array<{ __typename?: 'CardAction', action: CardActionKind, label: string, value: string }> }
    | { __typename: 'CarouselPayload', cards: Array<{ __typename?: 'CardPayload', title: string, subtitle?: string | null, cardImage?: string | null, actions: Array<{ __typename?: 'CardAction', action: CardActionKind, label: string, value: string }> }> }
    | { __typename: 'ChoicePayload', text: string, options: Array<{ __typename?: 'ChoiceOption', label: string, value: string }> }
    | { __typename: 'DropdownPayload', text: string, options: Array<{ __typename?: 'ChoiceOption', label: string, value: string }> }
    | { __typename: 'FilePayload', fileUrl: string, fileTitle?: string | null }
    | { __typename: 'ImagePayload', image: string }
    | { __typename: 'LocationPayload', latitude: number, longitude: number, address?: string | null, locationTitle?: string | null }
    | { __typename: 'MarkdownPayload', markdown: string }
    | { __typename: 'TextPayload', text: string }
    | { __typename: 'VideoPayload', videoUrl: string }
   };

export type WebChatCardFragment = { __typename?: 'CardPayload', title: string, subtitle?: string | null, cardImage?: string | null, actions: Array<{ __typename?: 'CardAction', action: CardActionKind, label: string, value: string }> };

export type WebChatCreateUserMutationVariables = Exact<{ [key: string]: never; }>;


export type WebChatCreateUserMutation = { __typename?: 'Mutation', createUser: { __typename?: 'CreateUserPayload', key: string, user: { __typename?: 'User', userId: string } } };

export type WebChatGetOrCreateConversationMutationVariables = Exact<{
  id: Scalars['String']['input'];
}>;


export type WebChatGetOrCreateConversationMutation = { __typename?: 'Mutation', getOrCreateConversation: { __typename?: 'GetOrCreateConversationPayload', conversation: { __typename?: 'Conversation', conversationId: string } } };

export type WebChatConversationQueryVariables = Exact<{
  id: Scalars['String']['input'];
}>;


export type WebChatConversationQuery = { __typename?: 'Query', me: { __typename?: 'User', userId: string }, conversation: { __typename?: 'Conversation', messages: { __typename?: 'ConversationMessagesConnection', edges: Array<{ __typename?: 'ConversationMessagesConnectionEdge', node: { __typename?: 'Message', messageId: string, userId: string, createdAt: string, author: { __typename?: 'User', isBot: boolean, name?: string | null, pictureUrl?: string | null }, payload:
            | { __typename: 'AudioPayload', audioUrl: string }
            | { __typename: 'BlocPayload', blocItems: Array<
                | { __typename: 'AudioPayload', audioUrl: string }
                | { __typename: 'FilePayload', fileUrl: string, fileTitle?: string | null }
                | { __typename: 'ImagePayload', image: string }
                | { __typename: 'LocationPayload', latitude: number, longitude: number, address?: string | null, locationTitle?: string | null }
                | { __typename: 'MarkdownPayload', markdown: string }
                | { __typename: 'TextPayload', text: string }
                | { __typename: 'VideoPayload', videoUrl: string }
              > }
            | { __typename: 'CardPayload', title: string, subtitle?: string | null, cardImage?: string | null, actions: Array<{ __typename?: 'CardAction', action: CardActionKind, label: string, value: string }> }
            | { __typename: 'CarouselPayload', cards: Array<{ __typename?: 'CardPayload', title: string, subtitle?: string | null, cardImage?: string | null, actions: Array<{ __typename?: 'CardAction', action: CardActionKind, label: string, value: string }> }> }
            | { __typename: 'ChoicePayload', text: string, options: Array<{ __typename?: 'ChoiceOption', label: string, value: string }> }
            | { __typename: 'DropdownPayload', text: string, options: Array<{ __typename?: 'ChoiceOption', label: string, value: string }> }
            | { __typename: 'FilePayload', fileUrl: string, fileTitle?: string | null }
            | { __typename: 'ImagePayload', image: string }
            | { __typename: 'LocationPayload', latitude: number, longitude: number, address?: string | null, locationTitle?: string | null }
            | { __typename: 'MarkdownPayload', markdown: string }
            | { __typename: 'TextPayload', text: string }
            | { __typename: 'VideoPayload', videoUrl: string }
           } }> } } };

export type WebChatSendTextMutationVariables = Exact<{
  conversationId: Scalars['String']['input'];
  text: Scalars['String']['input'];
  extra?: InputMaybe<Scalars['JSONObject']['input']>;
}>;


export type WebChatSendTextMutation = { __typename?: 'Mutation', createMessage: { __typename?: 'CreateMessagePayload', message: { __typename?: 'Message', messageId: string, userId: string, createdAt: string, author: { __typename?: 'User', isBot: boolean, name?: string | null, pictureUrl?: string | null }, payload:
        | { __typename: 'AudioPayload', audioUrl: string }
        | { __typename: 'BlocPayload', blocItems: Array<
            | { __typename: 'AudioPayload', audioUrl: string }
            | { __typename: 'FilePayload', fileUrl: string, fileTitle?: string | null }
            | { __typename: 'ImagePayload', image: string }
            | { __typename: 'LocationPayload', latitude: number, longitude: number, address?: string | null, locationTitle?: string | null }
            | { __typename: 'MarkdownPayload', markdown: string }
            | { __typename: 'TextPayload', text: string }
            | { __typename: 'VideoPayload', videoUrl: string }
          > }
        | { __typename: 'CardPayload', title: string, subtitle?: string | null, cardImage?: string | null, actions: Array<{ __typename?: 'CardAction', action: CardActionKind, label: string, value: string }> }
        | { __typename: 'CarouselPayload', cards: Array<{ __typename?: 'CardPayload', title: string, subtitle?: string | null, cardImage?: string | null, actions: Array<{ __typename?: 'CardAction', action: CardActionKind, label: string, value: string }> }> }
        | { __typename: 'ChoicePayload', text: string, options: Array<{ __typename?: 'ChoiceOption', label: string, value: string }> }
        | { __typename: 'DropdownPayload', text: string, options: Array<{ __typename?: 'ChoiceOption', label: string, value: string }> }
        | { __typename: 'FilePayload', fileUrl: string, fileTitle?: string | null }
        | { __typename: 'ImagePayload', image: string }
        | { __typename: 'LocationPayload', latitude: number, longitude: number, address?: string | null, locationTitle?: string | null }
        | { __typename: 'MarkdownPayload', markdown: string }
        | { __typename: 'TextPayload', text: string }
        | { __typename: 'VideoPayload', videoUrl: string }
       } } };

export type WebChatSignalsSubscriptionVariables = Exact<{
  id: Scalars['String']['input'];
  since?: InputMaybe<Scalars['String']['input']>;
}>;


export type WebChatSignalsSubscription = { __typename?: 'Subscription', conversationSignals:
    | { __typename: 'EventCreatedSignal' }
    | { __typename: 'MessageCreatedSignal', signalId?: string | null, message: { __typename?: 'Message', messageId: string, userId: string, createdAt: string, author: { __typename?: 'User', isBot: boolean, name?: string | null, pictureUrl?: string | null }, payload:
          | { __typename: 'AudioPayload', audioUrl: string }
          | { __typename: 'BlocPayload', blocItems: Array<
              | { __typename: 'AudioPayload', audioUrl: string }
              | { __typename: 'FilePayload', fileUrl: string, fileTitle?: string | null }
              | { __typename: 'ImagePayload', image: string }
              | { __typename: 'LocationPayload', latitude: number, longitude: number, address?: string | null, locationTitle?: string | null }
              | { __typename: 'MarkdownPayload', markdown: string }
              | { __typename: 'TextPayload', text: string }
              | { __typename: 'VideoPayload', videoUrl: string }
            > }
          | { __typename: 'CardPayload', title: string, subtitle?: string | null, cardImage?: string | null, actions: Array<{ __typename?: 'CardAction', action: CardActionKind, label: string, value: string }> }
          | { __typename: 'CarouselPayload', cards: Array<{ __typename?: 'CardPayload', title: string, subtitle?: string | null, cardImage?: string | null, actions: Array<{ __typename?: 'CardAction', action: CardActionKind, label: string, value: string }> }> }
          | { __typename: 'ChoicePayload', text: string, options: Array<{ __typename?: 'ChoiceOption', label: string, value: string }> }
          | { __typename: 'DropdownPayload', text: string, options: Array<{ __typename?: 'ChoiceOption', label: string, value: string }> }
          | { __typename: 'FilePayload', fileUrl: string, fileTitle?: string | null }
          | { __typename: 'ImagePayload', image: string }
          | { __typename: 'LocationPayload', latitude: number, longitude: number, address?: string | null, locationTitle?: string | null }
          | { __typename: 'MarkdownPayload', markdown: string }
          | { __typename: 'TextPayload', text: string }
          | { __typename: 'VideoPayload', videoUrl: string }
         } }
    | { __typename: 'MessageDeletedSignal', signalId?: string | null, messageId: string }
    | { __typename: 'MessageStatusChangedSignal' }
    | { __typename: 'MessageStreamAbortSignal', streamId: string }
    | { __typename: 'MessageStreamCompleteSignal', streamId: string, message: { __typename?: 'Message', messageId: string } }
    | { __typename: 'MessageStreamDeltaSignal', streamId: string, userId: string, createdAt: string, sequence: number, delta: string }
    | { __typename: 'MessageUpdatedSignal', signalId?: string | null, message: { __typename?: 'Message', messageId: string, userId: string, createdAt: string, author: { __typename?: 'User', isBot: boolean, name?: string | null, pictureUrl?: string | null }, payload:
          | { __typename: 'AudioPayload', audioUrl: string }
          | { __typename: 'BlocPayload', blocItems: Array<
              | { __typename: 'AudioPayload', audioUrl: string }
              | { __typename: 'FilePayload', fileUrl: string, fileTitle?: string | null }
              | { __typename: 'ImagePayload', image: string }
              | { __typename: 'LocationPayload', latitude: number, longitude: number, address?: string | null, locationTitle?: string | null }
              | { __typename: 'MarkdownPayload', markdown: string }
              | { __typename: 'TextPayload', text: string }
              | { __typename: 'VideoPayload', videoUrl: string }
            > }
          | { __typename: 'CardPayload', title: string, subtitle?: string | null, cardImage?: string | null, actions: Array<{ __typename?: 'CardAction', action: CardActionKind, label: string, value: string }> }
          | { __typename: 'CarouselPayload', cards: Array<{ __typename?: 'CardPayload', title: string, subtitle?: string | null, cardImage?: string | null, actions: Array<{ __typename?: 'CardAction', action: CardActionKind, label: string, value: string }> }> }
          | { __typename: 'ChoicePayload', text: string, options: Array<{ __typename?: 'ChoiceOption', label: string, value: string }> }
          | { __typename: 'DropdownPayload', text: string, options: Array<{ __typename?: 'ChoiceOption', label: string, value: string }> }
          | { __typename: 'FilePayload', fileUrl: string, fileTitle?: string | null }
          | { __typename: 'ImagePayload', image: string }
          | { __typename: 'LocationPayload', latitude: number, longitude: number, address?: string | null, locationTitle?: string | null }
          | { __typename: 'MarkdownPayload', markdown: string }
          | { __typename: 'TextPayload', text: string }
          | { __typename: 'VideoPayload', videoUrl: string }
         } }
    | { __typename: 'ParticipantAddedSignal', signalId?: string | null, participant: { __typename?: 'User', userId: string, isBot: boolean, name?: string | null, pictureUrl?: string | null } }
    | { __typename: 'ParticipantRemovedSignal', signalId?: string | null, participantId: string }
    | { __typename: 'ResyncSignal', reason: string }
    | { __typename: 'TypingStartedSignal', userId: string, timeout: number }
    | { __typename: 'TypingStoppedSignal', userId: string }
   };

export type WebChatParticipantsQueryVariables = Exact<{
  id: Scalars['String']['input'];
}>;


export type WebChatParticipantsQuery = { __typename?: 'Query', conversation: { __typename?: 'Conversation', participants: { __typename?: 'ConversationParticipantsConnection', edges: Array<{ __typename?: 'ConversationParticipantsConnectionEdge', joinedAt: string, node: { __typename?: 'User', userId: string, isBot: boolean, name?: string | null, pictureUrl?: string | null } }> } } };

export class TypedDocumentString<TResult, TVariables>
  extends String
  implements DocumentTypeDecoration<TResult, TVariables>
{
  __apiType?: NonNullable<DocumentTypeDecoration<TResult, TVariables>['__apiType']>;
  private value: string;
  public __meta__?: Record<string, any> | undefined;

  constructor(value: string, __meta__?: Record<string, any> | undefined) {
    super(value);
    this.value = value;
    this.__meta__ = __meta__;
  }

  override toString(): string & DocumentTypeDecoration<TResult, TVariables> {
    return this.value;
  }
}
export const WebChatCardFragmentDoc = new TypedDocumentString(`
    fragment WebChatCard on CardPayload {
  title
  subtitle
  cardImage: imageUrl
  actions {
    action
    label
    value
  }
}
    `, {"fragmentName":"WebChatCard"}) as unknown as TypedDocumentString<WebChatCardFragment, unknown>;
export const WebChatMessageFragmentDoc = new TypedDocumentString(`
    fragment WebChatMessage on Message {
  messageId
  userId
  createdAt
  author {
    isBot
    name
    pictureUrl
  }
  payload {
    __typename
    ... on TextPayload {
      text
    }
    ... on MarkdownPayload {
      markdown
    }
    ... on ImagePayload {
      image: imageUrl
    }
    ... on AudioPayload {
      audioUrl
    }
    ... on VideoPayload {
      videoUrl
    }
    ... on FilePayload {
      fileUrl
      fileTitle: title
    }
    ... on LocationPayload {
      latitude
      longitude
      address
      locationTitle: title
    }
    ... on CardPayload {
      ...WebChatCard
    }
    ... on CarouselPayload {
      cards: items {
        ...WebChatCard
      }
    }
    ... on ChoicePayload {
      text
      options {
        label
        value
      }
    }
    ... on DropdownPayload {
      text
      options {
        label
        value
      }
    }
    ... on BlocPayload {
      blocItems: items {
        __typename
        ... on TextPayload {
          text
        }
        ... on MarkdownPayload {
          markdown
        }
        ... on ImagePayload {
          image: imageUrl
        }
        ... on AudioPayload {
          audioUrl
        }
        ... on VideoPayload {
          videoUrl
        }
        ... on FilePayload {
          fileUrl
          fileTitle: title
        }
        ... on LocationPayload {
          latitude
          longitude
          address
          locationTitle: title
        }
      }
    }
  }
}
    fragment WebChatCard on CardPayload {
  title
  subtitle
  cardImage: imageUrl
  actions {
    action
    label
    value
  }
}`, {"fragmentName":"WebChatMessage"}) as unknown as TypedDocumentString<WebChatMessageFragment, unknown>;
export const WebChatCreateUserDocument = new TypedDocumentString(`
    mutation WebChatCreateUser {
  createUser(input: {}) {
    user {
      userId
    }
    key
  }
}
    `) as unknown as TypedDocumentString<WebChatCreateUserMutation, WebChatCreateUserMutationVariables>;
export const WebChatGetOrCreateConversationDocument = new TypedDocumentString(`
    mutation WebChatGetOrCreateConversation($id: String!) {
  getOrCreateConversation(input: {id: $id}) {
    conversation {
      conversationId
    }
  }
}
    `) as unknown as TypedDocumentString<WebChatGetOrCreateConversationMutation, WebChatGetOrCreateConversationMutationVariables>;
export const WebChatConversationDocument = new TypedDocumentString(`
    query WebChatConversation($id: String!) {
  me {
    userId
  }
  conversation(id: $id) {
    messages(first: 50) {
      edges {
        node {
          ...WebChatMessage
        }
      }
    }
  }
}
    fragment WebChatMessage on Message {
  messageId
  userId
  createdAt
  author {
    isBot
    name
    pictureUrl
  }
  payload {
    __typename
    ... on TextPayload {
      text
    }
    ... on MarkdownPayload {
      markdown
    }
    ... on ImagePayload {
      image: imageUrl
    }
    ... on AudioPayload {
      audioUrl
    }
    ... on VideoPayload {
      videoUrl
    }
    ... on FilePayload {
      fileUrl
      fileTitle: title
    }
    ... on LocationPayload {
      latitude
      longitude
      address
      locationTitle: title
    }
    ... on CardPayload {
      ...WebChatCard
    }
    ... on CarouselPayload {
      cards: items {
        ...WebChatCard
      }
    }
    ... on ChoicePayload {
      text
      options {
        label
        value
      }
    }
    ... on DropdownPayload {
      text
      options {
        label
        value
      }
    }
    ... on BlocPayload {
      blocItems: items {
        __typename
        ... on TextPayload {
          text
        }
        ... on MarkdownPayload {
          markdown
        }
        ... on ImagePayload {
          image: imageUrl
        }
        ... on AudioPayload {
          audioUrl
        }
        ... on VideoPayload {
          videoUrl
        }
        ... on FilePayload {
          fileUrl
          fileTitle: title
        }
        ... on LocationPayload {
          latitude
          longitude
          address
          locationTitle: title
        }
      }
    }
  }
}
fragment WebChatCard on CardPayload {
  title
  subtitle
  cardImage: imageUrl
  actions {
    action
    label
    value
  }
}`) as unknown as TypedDocumentString<WebChatConversationQuery, WebChatConversationQueryVariables>;
export const WebChatSendTextDocument = new TypedDocumentString(`
    mutation WebChatSendText($conversationId: String!, $text: String!, $extra: JSONObject) {
  createMessage(
    input: {conversationId: $conversationId, payload: {text: {text: $text, extra: $extra}}}
  ) {
    message {
      ...WebChatMessage
    }
  }
}
    fragment WebChatMessage on Message {
  messageId
  userId
  createdAt
  author {
    isBot
    name
    pictureUrl
  }
  payload {
    __typename
    ... on TextPayload {
      text
    }
    ... on MarkdownPayload {
      markdown
    }
    ... on ImagePayload {
      image: imageUrl
    }
    ... on AudioPayload {
      audioUrl
    }
    ... on VideoPayload {
      videoUrl
    }
    ... on FilePayload {
      fileUrl
      fileTitle: title
    }
    ... on LocationPayload {
      latitude
      longitude
      address
      locationTitle: title
    }
    ... on CardPayload {
      ...WebChatCard
    }
    ... on CarouselPayload {
      cards: items {
        ...WebChatCard
      }
    }
    ... on ChoicePayload {
      text
      options {
        label
        value
      }
    }
    ... on DropdownPayload {
      text
      options {
        label
        value
      }
    }
    ... on BlocPayload {
      blocItems: items {
        __typename
        ... on TextPayload {
          text
        }
        ... on MarkdownPayload {
          markdown
        }
        ... on ImagePayload {
          image: imageUrl
        }
        ... on AudioPayload {
          audioUrl
        }
        ... on VideoPayload {
          videoUrl
        }
        ... on FilePayload {
          fileUrl
          fileTitle: title
        }
        ... on LocationPayload {
          latitude
          longitude
          address
          locationTitle: title
        }
      }
    }
  }
}
fragment WebChatCard on CardPayload {
  title
  subtitle
  cardImage: imageUrl
  actions {
    action
    label
    value
  }
}`) as unknown as TypedDocumentString<WebChatSendTextMutation, WebChatSendTextMutationVariables>;
export const WebChatSignalsDocument = new TypedDocumentString(`
    subscription WebChatSignals($id: String!, $since: String) {
  conversationSignals(conversationId: $id, since: $since) {
    __typename
    ... on MessageCreatedSignal {
      signalId
      message {
        ...WebChatMessage
      }
    }
    ... on MessageDeletedSignal {
      signalId
      messageId
    }
    ... on ResyncSignal {
      reason
    }
    ... on MessageUpdatedSignal {
      signalId
      message {
        ...WebChatMessage
      }
    }
    ... on TypingStartedSignal {
      userId
      timeout
    }
    ... on TypingStoppedSignal {
      userId
    }
    ... on MessageStreamDeltaSignal {
      streamId
      userId
      createdAt
      sequence
      delta
    }
    ... on MessageStreamCompleteSignal {
      streamId
      message {
        messageId
      }
    }
    ... on MessageStreamAbortSignal {
      streamId
    }
    ... on ParticipantAddedSignal {
      signalId
      participant {
        userId
        isBot
        name
        pictureUrl
      }
    }
    ... on ParticipantRemovedSignal {
      signalId
      participantId
    }
  }
}
    fragment WebChatMessage on Message {
  messageId
  userId
  createdAt
  author {
    isBot
    name
    pictureUrl
  }
  payload {
    __typename
    ... on TextPayload {
      text
    }
    ... on MarkdownPayload {
      markdown
    }
    ... on ImagePayload {
      image: imageUrl
    }
    ... on AudioPayload {
      audioUrl
    }
    ... on VideoPayload {
      videoUrl
    }
    ... on FilePayload {
      fileUrl
      fileTitle: title
    }
    ... on LocationPayload {
      latitude
      longitude
      address
      locationTitle: title
    }
    ... on CardPayload {
      ...WebChatCard
    }
    ... on CarouselPayload {
      cards: items {
        ...WebChatCard
      }
    }
    ... on ChoicePayload {
      text
      options {
        label
        value
      }
    }
    ... on DropdownPayload {
      text
      options {
        label
        value
      }
    }
    ... on BlocPayload {
      blocItems: items {
        __typename
        ... on TextPayload {
          text
        }
        ... on MarkdownPayload {
          markdown
        }
        ... on ImagePayload {
          image: imageUrl
        }
        ... on AudioPayload {
          audioUrl
        }
        ... on VideoPayload {
          videoUrl
        }
        ... on FilePayload {
          fileUrl
          fileTitle: title
        }
        ... on LocationPayload {
          latitude
          longitude
          address
          locationTitle: title
        }
      }
    }
  }
}
fragment WebChatCard on CardPayload {
  title
  subtitle
  cardImage: imageUrl
  actions {
    action
    label
    value
  }
}`) as unknown as TypedDocumentString<WebChatSignalsSubscription, WebChatSignalsSubscriptionVariables>;
export const WebChatParticipantsDocument = new TypedDocumentString(`
    query WebChatParticipants($id: String!) {
  conversation(id: $id) {
    participants(first: 50) {
      edges {
        joinedAt
        node {
          userId
          isBot
          name
          pictureUrl
        }
      }
    }
  }
}
    `) as unknown as TypedDocumentString<WebChatParticipantsQuery, WebChatParticipantsQueryVariables>;