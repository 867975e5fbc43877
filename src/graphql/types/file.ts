import { createFile, type FileSlot } from '../../domain/files.ts'
import { builder } from '../builder.ts'
import { chatScope } from '../context.ts'

export const File = builder.objectRef<FileSlot>('File').implement({
  subGraphs: ['chat'],
  description: 'A file a user uploads (up to 1 MB): PUT its bytes once to uploadUrl, then anyone holding url can read them.',
  fields: (t) => ({
    fileId: t.exposeString('id'),
    key: t.exposeString('key', { description: 'The name the uploader gave it.' }),
    size: t.exposeInt('size', { description: 'In bytes.' }),
    contentType: t.exposeString('contentType', { description: "What its name's extension says." }),
    url: t.exposeString('url', { description: 'Where its bytes are served: signed and unguessable, it needs no header.' }),
    uploadUrl: t.exposeString('uploadUrl', { description: 'Where to PUT its bytes: signed, good for 15 minutes, once.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
})

builder.relayMutationField(
  'createFile',
  {
    subGraphs: ['chat'],
    inputFields: (t) => ({
      key: t.string({ required: true, description: 'The file name; its extension gives the content type.' }),
      size: t.int({ required: true, description: 'In bytes, at most 1 MB (1,048,576).' }),
      tags: t.field({ type: 'JSONObject', description: '`conversation`: the conversation it is for (the file goes with it).' }),
      accessPolicies: t.stringList({ description: "The web chat's; files are always readable by their URL." }),
      index: t.boolean({ description: "The web chat's; accepted, nothing is indexed." }),
      expiresAt: t.string({ description: "The web chat's; accepted, files last as long as their user or conversation." }),
      contentType: t.string({ description: 'Accepted; the content type is always the one the extension says.' }),
    }),
  },
  {
    description: 'Opens an upload slot for a file of the caller (415 for a type not taken, 413 over 1 MB).',
    resolve: async (_root, { input: { key, size, tags } }, ctx) => ({
      file: await createFile({ ctx: chatScope(ctx), input: { key, size, tags }, baseUrl: ctx.baseUrl?.() ?? '' }),
    }),
  },
  { subGraphs: ['chat'], outputFields: (t) => ({ file: t.expose('file', { type: File }) }) },
)
