import type { BootstrapValues } from './config.ts'
import type { Store } from './db/store.ts'
import { assertClientId, newId, newSecret, newWebhookId } from './domain/ids.ts'
import { createFirstTenant, hasAnyWorkspace } from './domain/tenancy.ts'

export interface BootstrapResult {
  workspaceId: string
  adminToken: string
  webhookId: string
  encryptionKey: string
  botId: string
}

/** The tenant a first start creates: the CONFAB_* values given, generated ones for the others. */
export function firstTenant(values: BootstrapValues): BootstrapResult {
  return {
    workspaceId: values.workspaceId ?? `wkspace_${newSecret(12)}`,
    adminToken: values.adminToken ?? `bp_pat_${newSecret(32)}`,
    webhookId: values.webhookId ?? newWebhookId(),
    encryptionKey: values.encryptionKey ?? newSecret(32),
    botId: newId(),
  }
}

/**
 * First start on an empty database: one workspace, its admin token, the default bot (answered by
 * the built-in echo bot) and its chat integration (see firstTenant). Returns what was created, or
 * undefined when the database already has a tenant.
 */
export async function bootstrap(store: Store, tenant: BootstrapResult): Promise<BootstrapResult | undefined> {
  if (await hasAnyWorkspace(store)) return undefined
  assertClientId(tenant.webhookId, 'CONFAB_WEBHOOK_ID')
  const created = await createFirstTenant(store, { ...tenant, botName: 'Echo bot', botHandler: 'echo' })
  return created ? tenant : undefined
}

/**
 * What the first start prints. Never the encryption key: it is the server's shared key (Botpress'
 * AUTH_ENCRYPTION_KEY), with which anyone may create a user; an operator who signs user keys sets a
 * personal key of their own (updateBot), which is never printed either.
 */
export function describeBootstrap(result: BootstrapResult, baseUrl: string): string {
  return [
    'Confab bootstrap: created the default tenant. These values are printed once; keep them.',
    `  chat base URL (apiUrl):  ${baseUrl}/${result.webhookId}`,
    `  webhook id:              ${result.webhookId}`,
    `  workspace id:            ${result.workspaceId}`,
    `  admin token:             ${result.adminToken}`,
    `  admin base URL:          ${baseUrl}/v1/admin`,
    '  user keys:               signed with the shared key (anyone may create a user); to sign them yourself, set a',
    `                           personal key: PUT ${baseUrl}/v1/admin/bots/${result.botId} with`,
    '                           {"integrations":{"chat":{"configuration":{"encryptionKey":"<32+ characters>"}}}}',
    '',
  ].join('\n')
}
