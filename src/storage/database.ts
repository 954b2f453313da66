import type { Insertable, Selectable, Updateable } from 'kysely'
import type { DAILY_COUNT_METRICS } from '../domain/metrics.js'
import type { PlatformCode } from '../domain/platforms.js'
import type { PostCountMetric, PostTextField } from '../domain/post-fields.js'

type DailyCountMetric = (typeof DAILY_COUNT_METRICS)[number]

/**
 * Table shapes as Kysely sees them. Column names are the API's field names (snake_case) so a field
 * keeps one name from table to wire. Dates are `YYYY-MM-DD` strings, timestamps ISO-8601 UTC
 * strings, money integer micro-units (see docs/storage.md).
 */

export interface BrandsTable {
  brand_id: number
  brand_name: string
  updated_at: string
}

export interface AccountsTable {
  platform: PlatformCode
  account_id: number
  brand_id: number
  account_name: string
  network_id: string | null
  storage_avatar: string | null
  permalink: string | null
  updated_at: string
}

/** One account-day. Every metric is nullable: null means "not reported" (src/domain/metrics.ts). */
export type DailyMetricsTable = {
  platform: PlatformCode
  account_id: number
  date: string
  /** Revenue in micro-units (1e-6 of the currency unit): exact sums, no float drift. */
  revenue_micros: number | null
} & Record<DailyCountMetric, number | null>

/** One post (its fields: src/domain/post-fields.ts). */
export type PostsTable = {
  platform: PlatformCode
  /** The platform's own post id: unique per platform. */
  id: string
  account_id: number
  /** ISO-8601 UTC, `2026-11-21T10:30:00Z`. */
  created_time: string
  type: string | null
  post_type: string
  revenue_micros: number | null
  /** When this row was last written; lets a reader tell imports apart. */
  updated_at: string
} & Record<PostTextField, string | null> & Record<PostCountMetric, number | null>

/**
 * A version of a post that was replaced or deleted, kept so a /posts page walk can read "posts as
 * of" the revision its first page saw (migration 2026_11_22_0000_post_snapshots, docs/posts.md).
 */
export type PostHistoryTable = Omit<PostsTable, 'updated_at'> & {
  /** The revision this version was written at. */
  revision: number
  /** The revision that replaced or deleted it. */
  superseded_revision: number
  superseded_at: string
}

/** One row: the commit-ordered revision counter every write to `posts` advances. */
export interface PostClockTable {
  singleton: number
  tick: number
}

export interface UsersTable {
  /** Opaque id, `usr_…`; the `user_id` login returns. */
  user_id: string
  name: string
  created_at: string
  /** Set when disabled; null while active. */
  disabled_at: string | null
}

export interface CredentialsTable {
  /** `pak_` + 24 base62 characters; unique. */
  client_key: string
  user_id: string
  /** SHA-256 of the secret (hex); the secret itself is shown once and never stored. */
  secret_digest: string
  created_at: string
  revoked_at: string | null
}

export interface UserBrandsTable {
  user_id: string
  brand_id: number
  created_at: string
}

/** The metric columns of every read-model table (migration 2026_11_23_0100_read_model). */
export type RollupColumns = {
  /** Account-days summed into the row: an entry exists iff > 0. */
  rows_count: number
  revenue_micros: number | null
  followers: number | null
  engagement_denominator: number | null
} & Record<Exclude<DailyCountMetric, 'followers'>, number | null>

/**
 * One brand's day, every platform summed, with its daily entry as the API writes it (migration
 * 2026_11_24_0000_daily_entry_json; NULL for rows summed before it).
 */
export type BrandDailyTable = { brand_id: number, date: string, entry_json: string | null } & RollupColumns
/**
 * One brand's month (first day); followers = Σ over its accounts of each one's last value in the month.
 * entry_json: its monthly entry for a period covering the whole month, as the API writes it
 * (migration 2026_11_25_0500_monthly_entry_json; NULL for rows summed before it).
 */
export type BrandMonthlyTable = { brand_id: number, month: string, entry_json: string | null } & RollupColumns
/** One account's month (first day), with the day of its last reported followers. */
export type AccountMonthlyTable = { platform: PlatformCode, account_id: number, month: string, followers_date: string | null } & RollupColumns

/** The one row numbering syncs and change events in commit order (migration 2026_11_25_0000_change_feed). */
export interface ChangeClockTable {
  singleton: number
  last_sync_id: number
  last_event_id: number
  /** Events up to this number were removed by the retention. */
  purged_through_event_id: number
}

/** One committed import. The JSON columns are text (docs/storage.md "Syncs and the change feed"). */
export interface SyncsTable {
  sync_id: number
  started_at: string
  committed_at: string
  /** JSON array of source names. */
  source_files: string
  /** JSON object: records read and rows changed, by kind. */
  counts: string
  /** JSON array of brand ids whose data the sync changed. */
  brand_ids: string
  /** JSON array of [platform, account_id] whose data the sync changed. */
  accounts: string
  /** Its events are numbered first_event_id … first_event_id + event_count - 1 (migration 2026_11_25_0100_sync_events); null when none. */
  first_event_id: number | null
  event_count: number
}

/** One event of the change feed; `data` is the event's data member as JSON text. */
export interface ChangeEventsTable {
  event_id: number
  type: string
  brand_id: number
  /** Access events only: the user who sees it. */
  user_id: string | null
  sync_id: number | null
  created_at: string
  data: string
}

/** Per account: its first and last day with a row, and when an import last changed its data. */
export interface AccountCoverageTable {
  platform: PlatformCode
  account_id: number
  first_date: string
  last_date: string
  synced_at: string | null
  sync_id: number | null
}

/** A partner's webhook endpoint (migration 2026_11_25_0400_webhooks; docs/storage.md "Webhooks"). */
export interface WebhookEndpointsTable {
  endpoint_id: string
  user_id: string
  url: string
  description: string | null
  status: 'enabled' | 'disabled'
  disabled_by: 'partner' | 'operator' | 'failing' | null
  disabled_reason: string | null
  /** `whsec_…`, kept as issued: the server signs with it. Read only by the delivery worker. */
  secret: string
  previous_secret: string | null
  previous_secret_expires_at: string | null
  failing_since: string | null
  created_at: string
  updated_at: string
}

export interface WebhookSubscriptionsTable {
  endpoint_id: string
  type: string
}

/** The outbox: one delivery per endpoint and event. Times in `*_ms` are ms since the epoch. */
export interface WebhookDeliveriesTable {
  endpoint_id: string
  event_id: number
  event_type: string
  sync_id: number | null
  test_payload: string | null
  status: 'pending' | 'succeeded' | 'failed' | 'skipped'
  skip_reason: string | null
  attempt_count: number
  round_attempts: number
  next_attempt_ms: number | null
  lease_until_ms: number | null
  lease_token: string | null
  created_at: string
}

export interface WebhookAttemptsTable {
  endpoint_id: string
  event_id: number
  attempt_number: number
  attempted_at: string
  duration_ms: number
  http_status: number | null
  error: string | null
  response_excerpt: string | null
}

/** A bulk export job (migration 2026_11_28_0000_export_jobs; docs/exports.md). */
export interface ExportJobsTable {
  export_id: string
  user_id: string
  dataset: string
  format: string
  compression: string
  request: string
  status: 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled'
  rows_written: number
  rows_estimate: number | null
  error_code: string | null
  error_message: string | null
  files: string | null
  sync_id: number | null
  event_id: number | null
  attempts: number
  lease_until_ms: number | null
  lease_token: string | null
  created_at: string
  started_at: string | null
  finished_at: string | null
  expires_at: string | null
  expired: number
}

export interface Database {
  brands: BrandsTable
  accounts: AccountsTable
  daily_metrics: DailyMetricsTable
  posts: PostsTable
  post_history: PostHistoryTable
  post_clock: PostClockTable
  users: UsersTable
  credentials: CredentialsTable
  user_brands: UserBrandsTable
  brand_daily: BrandDailyTable
  brand_monthly: BrandMonthlyTable
  account_monthly: AccountMonthlyTable
  change_clock: ChangeClockTable
  syncs: SyncsTable
  change_events: ChangeEventsTable
  account_coverage: AccountCoverageTable
  webhook_endpoints: WebhookEndpointsTable
  webhook_subscriptions: WebhookSubscriptionsTable
  webhook_deliveries: WebhookDeliveriesTable
  webhook_attempts: WebhookAttemptsTable
  export_jobs: ExportJobsTable
}

export type BrandRow = Selectable<BrandsTable>
export type NewBrandRow = Insertable<BrandsTable>
export type AccountRow = Selectable<AccountsTable>
export type NewAccountRow = Insertable<AccountsTable>
export type DailyMetricsRow = Selectable<DailyMetricsTable>
export type NewDailyMetricsRow = Insertable<DailyMetricsTable>
export type PostRow = Selectable<PostsTable>
export type NewPostRow = Insertable<PostsTable>
export type UserRow = Selectable<UsersTable>
export type UserUpdate = Updateable<UsersTable>
export type CredentialRow = Selectable<CredentialsTable>
export type UserBrandRow = Selectable<UserBrandsTable>
