import type { Kysely } from 'kysely'
import { formatUtcSeconds } from '../../domain/dates.js'
import type { Database } from '../../storage/database.js'
import { purgeDeliveriesBefore } from '../../storage/webhooks/delivery-log.repository.js'

/**
 * Deliveries are kept as long as the change feed keeps events (CHANGES_RETENTION_DAYS): older
 * ones are deleted with their attempts, in batches, a bounded number per run (the rest waits for
 * the next run, an hour later).
 */

const PURGE_BATCH = 1000
const PURGE_BATCHES_PER_RUN = 100

/** Deletes deliveries created more than `retentionDays` before `nowMs`; returns how many went. */
export async function purgeExpiredDeliveries (db: Kysely<Database>, retentionDays: number, nowMs: number, stopping: () => boolean): Promise<{ removed: number, before: string }> {
  const before = formatUtcSeconds(nowMs - retentionDays * 86_400_000)
  let removed = 0
  for (let batch = 0; batch < PURGE_BATCHES_PER_RUN && !stopping(); batch++) {
    const count = await purgeDeliveriesBefore(db, before, PURGE_BATCH)
    removed += count
    if (count < PURGE_BATCH) break
  }
  return { removed, before }
}
