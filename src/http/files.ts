import type { Store } from '../db/store.ts'
import { DomainError } from '../domain/errors.ts'
import { fileSizeLimit, readFile, uploadFile } from '../domain/files.ts'
import { readBody } from './body.ts'
import type { Transport } from './mounts.ts'
import { json } from './responses.ts'
import { restRefusal } from './rest.ts'

const only = (method: string, request: Request) => {
  if (request.method !== method) throw new DomainError('MethodNotFound', `${request.method} is not allowed here; allowed: ${method}`, { allow: method })
}

/** PUT of a file's bytes to its upload URL (/{webhookId}/files/{id}/upload?expires=&signature=), once. */
export function fileUploadTransport(store: Store): Transport {
  return {
    async serve(request, { params: { webhookId = '', fileId = '' } }) {
      only('PUT', request)
      const query = new URL(request.url).searchParams
      const bytes = await readBody(request, fileSizeLimit)
      const file = await uploadFile({
        store,
        webhookId,
        id: fileId,
        expires: query.get('expires') ?? '',
        signature: query.get('signature') ?? '',
        bytes,
      })
      return json(200, { file: { id: file.id, key: file.key, size: file.size, contentType: file.contentType } })
    },
    refuse: restRefusal,
  }
}

/** Shown in the page (a picture, a sound, a video): what the web chat displays. */
const shownInline = /^(image|audio|video)\//

/**
 * How a browser opened on a file's URL treats it (RFC 6266): pictures, sounds and videos shown, any other
 * type saved as a download under its name (issue 49 L7), never rendered in a tab of Confab's origin. The
 * name is given twice: ASCII for old clients, and exactly (RFC 8187) for the others.
 */
export function contentDisposition(contentType: string, name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_')
  const exact = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
  return `${shownInline.test(contentType) ? 'inline' : 'attachment'}; filename="${ascii}"; filename*=UTF-8''${exact}`
}

/**
 * GET of a file's public URL (/{webhookId}/files/{id}/{signature}/{name}): the bytes, with their
 * content type, to a plain <img src> of any origin. They are never run as a page of Confab's
 * origin (nosniff, a sandboxing policy) and never change, so they may be cached.
 */
export function fileDownloadTransport(store: Store): Transport {
  return {
    async serve(request, { params: { webhookId = '', fileId = '', signature = '' } }) {
      only('GET', request)
      const { file, bytes } = await readFile({ store, webhookId, id: fileId, signature })
      return new Response(bytes as Uint8Array<ArrayBuffer>, {
        status: 200,
        headers: {
          'content-type': file.contentType,
          'content-length': String(bytes.byteLength),
          'content-disposition': contentDisposition(file.contentType, file.key),
          'cache-control': 'private, max-age=86400, immutable',
          'x-content-type-options': 'nosniff',
          'content-security-policy': "sandbox; default-src 'none'",
          'cross-origin-resource-policy': 'cross-origin',
        },
      })
    },
    refuse: restRefusal,
  }
}
