import type { Migration } from 'kysely'
import * as initialSchema from './2026_11_21_0000_initial_schema.js'
import * as postSnapshots from './2026_11_22_0000_post_snapshots.js'
import * as deferredReferences from './2026_11_23_0000_deferred_references.js'
import * as readModel from './2026_11_23_0100_read_model.js'
import * as dailyEntryJson from './2026_11_24_0000_daily_entry_json.js'
import * as changeFeed from './2026_11_25_0000_change_feed.js'
import * as syncEvents from './2026_11_25_0100_sync_events.js'
import * as changeFeedSyncIndex from './2026_11_25_0300_change_feed_sync_index.js'
import * as webhooks from './2026_11_25_0400_webhooks.js'
import * as monthlyEntryJson from './2026_11_25_0500_monthly_entry_json.js'
import * as exportJobs from './2026_11_28_0000_export_jobs.js'
import * as brandDailyRunning from './2026_11_29_0000_brand_daily_running.js'

/**
 * Every migration, by name. Listed statically (not read from the folder) so the same list works
 * from TypeScript sources, from dist/, and inside a bundle. Names sort in apply order.
 */
export const MIGRATIONS: Record<string, Migration> = {
  '2026_11_21_0000_initial_schema': initialSchema,
  '2026_11_22_0000_post_snapshots': postSnapshots,
  '2026_11_23_0000_deferred_references': deferredReferences,
  '2026_11_23_0100_read_model': readModel,
  '2026_11_24_0000_daily_entry_json': dailyEntryJson,
  '2026_11_25_0000_change_feed': changeFeed,
  '2026_11_25_0100_sync_events': syncEvents,
  '2026_11_25_0300_change_feed_sync_index': changeFeedSyncIndex,
  '2026_11_25_0400_webhooks': webhooks,
  '2026_11_25_0500_monthly_entry_json': monthlyEntryJson,
  '2026_11_28_0000_export_jobs': exportJobs,
  '2026_11_29_0000_brand_daily_running': brandDailyRunning,
}
