import type { CodegenConfig } from '@graphql-codegen/cli'
import { printSchema } from 'graphql'
import { agentSchema } from './src/graphql/agent-schema.ts'
import { botApiSchema } from './src/graphql/bot-api-schema.ts'
import { adminSchema, chatSchema } from './src/graphql/schema.ts'

// The SDL comes straight from the Pothos builder, so the schema/ files and the typed documents
// can never describe a schema other than the one the server runs.
const chatSdl = printSchema(chatSchema)
const adminSdl = printSchema(adminSchema)
const botApiSdl = printSchema(botApiSchema)
const agentSdl = printSchema(agentSchema)

const scalars = {
  DateTime: 'string',
  JSONObject: 'Record<string, unknown>',
}

const operations = {
  plugins: ['typescript-operations', 'typed-document-node'],
  config: {
    scalars,
    enumsAsTypes: true,
    avoidOptionals: { field: true, inputValue: false, object: true, defaultValue: false },
    useTypeImports: true,
    documentMode: 'documentNode',
  },
}

const config: CodegenConfig = {
  overwrite: true,
  // Plugins resolve from the project, not from wherever npm nested a copy inside @graphql-codegen/cli.
  pluginLoader: (name: string) => import(name),
  generates: {
    'schema/schema.graphql': { schema: chatSdl, plugins: ['schema-ast'] },
    'schema/admin.graphql': { schema: adminSdl, plugins: ['schema-ast'] },
    'schema/bot-api.graphql': { schema: botApiSdl, plugins: ['schema-ast'] },
    'schema/agent.graphql': { schema: agentSdl, plugins: ['schema-ast'] },
    'src/__generated__/chat-operations.ts': {
      schema: chatSdl,
      documents: 'src/rest/chat/*.graphql',
      ...operations,
    },
    // The web chat's typed client: documents as plain strings, so the bundle carries no GraphQL library.
    'src/webchat/__generated__/': {
      schema: chatSdl,
      documents: 'src/webchat/documents.graphql',
      preset: 'client',
      presetConfig: { fragmentMasking: false },
      config: {
        scalars,
        enumsAsTypes: true,
        useTypeImports: true,
        documentMode: 'string',
        emitLegacyCommonJSImports: false,
      },
    },
    'src/__generated__/bot-api-operations.ts': {
      schema: botApiSdl,
      documents: 'src/rest/bot-api/*.graphql',
      ...operations,
    },
    'src/__generated__/agent-operations.ts': {
      schema: agentSdl,
      documents: 'src/rest/agent/*.graphql',
      ...operations,
    },
    'src/__generated__/admin-operations.ts': {
      schema: adminSdl,
      documents: 'src/rest/admin/*.graphql',
      ...operations,
    },
  },
}

export default config
