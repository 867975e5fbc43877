import { createHmac, timingSafeEqual } from 'node:crypto'
import type { ChatIntegrationRow, FileRow } from '../db/schema.ts'
import type { Queries, Store } from '../db/store.ts'
import { now } from './clock.ts'
import type { ChatContext } from './context.ts'
import { requireParticipation } from './conversations.ts'
import { DomainError, forbidden, invalidPayload, notFound } from './errors.ts'
import { newId } from './ids.ts'
import { verifyingKeysOf } from './key-modes.ts'
import { findChatIntegration } from './tenancy.ts'
import { requireCaller } from './users.ts'

/** The spec's Files limit: 1 MB = 1,048,576 bytes. */
export const fileSizeLimit = 1_048_576

/** How long an upload URL is good for. */
export const uploadUrlLifetimeMs = 15 * 60_000

/**
 * The kinds of file a user may upload, by extension: what a chat shows (images, audio, video) and
 * plain documents. Nothing a browser would run as a page of Confab's origin (no HTML, no SVG).
 */
const contentTypes: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  mp3: 'audio/mpeg',
  ogg: 'audio/ogg',
  wav: 'audio/wav',
  m4a: 'audio/mp4',
  mp4: 'video/mp4',
  webm: 'video/webm',
  pdf: 'application/pdf',
  txt: 'text/plain',
  csv: 'text/csv',
}

/** The content type a file name's extension says (415 for a kind Confab does not take). */
export function contentTypeOf(key: string): string {
  const extension = /\.([A-Za-z0-9]+)$/.exec(key)?.[1]?.toLowerCase()
  const type = extension === undefined ? undefined : contentTypes[extension]
  if (!type) {
    throw new DomainError('UnsupportedMediaType', `files of this type cannot be uploaded ("${key}"); allowed: ${Object.keys(contentTypes).join(', ')}`)
  }
  return type
}

const tooLarge = (size: number) => new DomainError('PayloadTooLarge', `the file is ${size} bytes, over the limit of ${fileSizeLimit} bytes (1 MB)`)

const signWith = (key: string, integration: ChatIntegrationRow, what: string) =>
  createHmac('sha256', key).update(`confab-file:${integration.id}:${what}`).digest('base64url')

const sign = (integration: ChatIntegrationRow, what: string) => signWith(integration.encryptionKey, integration, what)

const sameSignature = (given: string, expected: string) => given.length === expected.length && timingSafeEqual(Buffer.from(given), Buffer.from(expected))

/** Signed with the shared key, or with one a key rotation keeps: a URL handed out before a rotation works until the old key is retired. */
const signedFor = (integration: ChatIntegrationRow, what: string, given: string) =>
  [integration.encryptionKey, ...verifyingKeysOf(integration).slice(1)].some((key) => sameSignature(given, signWith(key, integration, what)))

/** A file with the two URLs the web chat uses: where to PUT its bytes once, and where they are served. */
export interface FileSlot extends FileRow {
  url: string
  uploadUrl: string
}

/** The public URL of a file: unguessable (signed with the integration's key), so it needs no header. */
export const fileUrl = (baseUrl: string, integration: ChatIntegrationRow, file: FileRow) =>
  `${baseUrl}/${integration.webhookId}/files/${file.id}/${sign(integration, `get:${file.id}`)}/${encodeURIComponent(file.key)}`

const uploadUrl = (baseUrl: string, integration: ChatIntegrationRow, file: FileRow, expires: number) =>
  `${baseUrl}/${integration.webhookId}/files/${file.id}/upload?expires=${expires}&signature=${sign(integration, `put:${file.id}:${expires}`)}`

export interface CreateFileInput {
  key: string
  size: number
  /** The web chat tags its uploads with the conversation they are for; the file goes with it. */
  tags?: Record<string, unknown> | null
}

/**
 * A user's files may announce at most the quota in all (slots count as soon as they are made: an
 * upload never exceeds its slot). Refused with 413, not 429: waiting does not help, deleting does.
 */
async function checkStorageQuota(ctx: ChatContext, q: Queries, userId: string, size: number): Promise<void> {
  const quota = ctx.limits?.storagePerUser ?? 0
  if (quota === 0) return
  const used = await q.files.sizeOfUser(ctx.integration.id, userId)
  if (used + size > quota) {
    throw new DomainError(
      'PayloadTooLarge',
      `the user's files would take ${used + size} bytes, over their storage quota of ${quota} bytes (FILE_STORAGE_PER_USER_BYTES); ${used} bytes are in use`,
    )
  }
}

/**
 * An upload slot: the caller names the file (its extension gives the content type) and its size,
 * refused here when over the limit, since a browser's later PUT is not checked by the web chat.
 */
export function createFile({ ctx, input, baseUrl }: { ctx: ChatContext; input: CreateFileInput; baseUrl: string }): Promise<FileSlot> {
  if (input.key.length === 0 || input.key.length > 255) throw invalidPayload('key must be 1 to 255 characters')
  if (!Number.isInteger(input.size) || input.size < 0) throw invalidPayload('size must be a whole number of bytes')
  if (input.size > fileSizeLimit) throw tooLarge(input.size)
  const contentType = contentTypeOf(input.key)
  const conversationId = typeof input.tags?.conversation === 'string' ? input.tags.conversation : null
  return ctx.store.write(async (q) => {
    const caller = await requireCaller(ctx, q)
    if (conversationId !== null) await requireParticipation(ctx, q, conversationId)
    await checkStorageQuota(ctx, q, caller.id, input.size)
    const row: FileRow = {
      integrationId: ctx.integration.id,
      id: newId(),
      userId: caller.id,
      conversationId,
      key: input.key,
      contentType,
      size: input.size,
      uploadedAt: null,
      createdAt: now(),
    }
    await q.files.insert(row)
    const expires = Date.now() + uploadUrlLifetimeMs
    return { ...row, url: fileUrl(baseUrl, ctx.integration, row), uploadUrl: uploadUrl(baseUrl, ctx.integration, row, expires) }
  })
}

/**
 * The PUT of an upload URL: its signature and expiry checked, at most the slot's size (and the
 * limit), and once only; the bytes are kept only if the slot was still open when they arrived.
 */
export async function uploadFile({
  store,
  webhookId,
  id,
  expires,
  signature,
  bytes,
}: {
  store: Store
  webhookId: string
  id: string
  expires: string
  signature: string
  bytes: Uint8Array
}): Promise<FileRow> {
  const integration = await findChatIntegration(store, webhookId)
  if (!/^\d+$/.test(expires) || !signedFor(integration, `put:${id}:${expires}`, signature)) {
    throw forbidden('this upload URL is not valid')
  }
  if (Number(expires) < Date.now()) throw forbidden('this upload URL has expired')
  const file = await store.read((q) => q.files.find(integration.id, id))
  if (!file) throw notFound('File', id)
  if (bytes.byteLength > fileSizeLimit) throw tooLarge(bytes.byteLength)
  if (bytes.byteLength > file.size) {
    throw new DomainError('PayloadTooLarge', `the upload is ${bytes.byteLength} bytes, more than the ${file.size} announced`)
  }
  const staged = await store.files.stage(bytes)
  try {
    const at = now()
    const opened = await store.write((q) => q.files.markUploaded(integration.id, id, at))
    if (!opened) throw new DomainError('AlreadyExists', 'this upload URL was already used')
    await staged.keep(id)
    return { ...file, uploadedAt: at }
  } catch (error) {
    await staged.discard()
    throw error
  }
}

/** The bytes behind a file URL, for anyone holding it (its signature is the credential). */
export async function readFile({
  store,
  webhookId,
  id,
  signature,
}: {
  store: Store
  webhookId: string
  id: string
  signature: string
}): Promise<{ file: FileRow; bytes: Uint8Array }> {
  const integration = await findChatIntegration(store, webhookId)
  if (!signedFor(integration, `get:${id}`, signature)) throw notFound('File', id)
  const file = await store.read((q) => q.files.find(integration.id, id))
  const bytes = file?.uploadedAt ? await store.files.read(id) : undefined
  if (!file || !bytes) throw notFound('File', id)
  return { file, bytes }
}
