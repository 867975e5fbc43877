import type {} from './store.ts'

/*
 * The lease renewal of a claimed bot delivery, beside the storage API of store.ts (to be folded
 * into BotDeliveryQueries there). Only an engine several instances share holds leases (PostgreSQL);
 * on one that a process owns (SQLite) a claim is a read, and there is nothing to renew.
 */
declare module './store.ts' {
  interface BotDeliveryQueries {
    /**
     * Keeps a claimed delivery its holder's until `leaseUntil`, while it still holds it until
     * `heldUntil` (the lease its claim or last renewal set): false when it does not (settled,
     * rescheduled, gone, or its lease ran out and another instance took it).
     */
    renew?(id: string, heldUntil: string, leaseUntil: string): Promise<boolean>
  }
}
