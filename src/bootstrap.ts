import type { BootstrapValues } from './config.ts'
import type { Db } from './db/client.ts'
import { assertClientId, newSecret } from './domain/ids.ts'
import { createTenant, hasAnyWorkspace } from './domain/tenancy.ts'

export interface BootstrapResult {
  workspaceId: string
  adminToken: string
  webhookId: string
  encryptionKey: string
  botId: string
}

/**
 * First start on an empty database: one workspace, its admin token, the default bot (answered by
 * the built-in echo bot) and its chat integration, from the CONFAB_* values or generated ones.
 * Returns what was created, or undefined when the database already has a tenant.
 */
export function bootstrap(db: Db, values: BootstrapValues): BootstrapResult | undefined {
  if (hasAnyWorkspace(db)) return undefined
  const tenant = {
    workspaceId: values.workspaceId ?? `wkspace_${newSecret(12)}`,
    adminToken: values.adminToken ?? `bp_pat_${newSecret(32)}`,
    webhookId: values.webhookId ?? newSecret(18),
    encryptionKey: values.encryptionKey ?? newSecret(32),
  }
  assertClientId(tenant.webhookId, 'CONFAB_WEBHOOK_ID')
  const { botId } = createTenant(db, { ...tenant, botName: 'Echo bot', botHandler: 'echo' })
  return { ...tenant, botId }
}

export function describeBootstrap(result: BootstrapResult, baseUrl: string): string {
  return [
    'Confab bootstrap: created the default tenant. These values are printed once; keep them.',
    `  chat base URL (apiUrl):  ${baseUrl}/${result.webhookId}`,
    `  webhook id:              ${result.webhookId}`,
    `  encryption key:          ${result.encryptionKey}`,
    `  workspace id:            ${result.workspaceId}`,
    `  admin token:             ${result.adminToken}`,
    `  admin base URL:          ${baseUrl}/v1/admin`,
    '',
  ].join('\n')
}
