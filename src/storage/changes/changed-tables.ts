import type { Dialect } from '../db.js'

/**
 * The temporary tables an import fills with what it changed (docs/import.md "Syncs"), in the store
 * rather than in memory: they grow with the changes, the process does not. Created inside the
 * import's transaction and gone at its end (dropped before COMMIT, or ON COMMIT DROP).
 *
 * Posts, accounts and brands: one row per key, the first write of a key winning (`added`/`created`
 * = the row did not exist before the import; accounts and brands keep their values from before it).
 *
 * Daily rows, by the million, are kept as runs of consecutive days per account (`changed_day_runs`):
 * PostgreSQL appends the runs of each written batch (capture.postgres.ts), SQLite those its writer
 * sees as it writes (day-runs.ts). Runs may overlap or touch (a day written twice, days out of
 * order); sync-recorder.ts merges them into `sync_ranges`. Whether days were inserted or changed is
 * counted, not listed (`changed_counts`): every write of a daily row is an insert or an update, and
 * a day is inserted at most once, by its first write — so the days inserted are the writes minus
 * the updates, and the days changed are the days in the ranges minus those.
 */
interface TableDefinition {
  sqlite: string
  postgres: string
}

export const CHANGED_TABLES = {
  /** Runs of consecutive days of one account whose daily rows the import inserted or changed. */
  changed_day_runs: {
    sqlite: 'platform text not null, account_id integer not null, since text not null, until text not null',
    postgres: 'platform text not null, account_id bigint not null, since date not null, until date not null',
  },
  /** One row: the writes of daily rows (inserts and updates that changed a row) and, of them, the updates. */
  changed_counts: {
    sqlite: 'daily_writes integer not null, daily_updates integer not null',
    postgres: 'daily_writes bigint not null, daily_updates bigint not null',
  },
  changed_posts: {
    sqlite: 'platform text not null, id text not null, added integer not null, primary key (platform, id)',
    postgres: 'platform text not null, id text not null, added integer not null, primary key (platform, id)',
  },
  changed_accounts: {
    sqlite: 'platform text not null, account_id integer not null, created integer not null, old_brand_id integer, old_account_name text, ' +
      'old_network_id text, old_storage_avatar text, old_permalink text, primary key (platform, account_id)',
    postgres: 'platform text not null, account_id bigint not null, created integer not null, old_brand_id bigint, old_account_name text, ' +
      'old_network_id text, old_storage_avatar text, old_permalink text, primary key (platform, account_id)',
  },
  changed_brands: {
    sqlite: 'brand_id integer not null primary key, created integer not null, old_brand_name text',
    postgres: 'brand_id bigint not null primary key, created integer not null, old_brand_name text',
  },
  /**
   * Filled at commit: the changed days as inclusive ranges per account (runs merged), numbered in
   * the events' order, with how many days each holds.
   */
  sync_ranges: {
    sqlite: 'seq integer not null primary key, brand_id integer not null, platform text not null, account_id integer not null, since text not null, until text not null, ' +
      'days integer not null',
    postgres: 'seq bigint not null primary key, brand_id bigint not null, platform text not null, account_id bigint not null, since date not null, until date not null, ' +
      'days integer not null',
  },
  /**
   * Filled at commit: the `account.updated` events, numbered in the feed's order (brand, platform
   * rank, account, change), read back a page at a time as they are written.
   */
  sync_account_events: {
    sqlite: 'seq integer not null primary key, brand_id integer not null, platform text not null, account_id integer not null, account_name text not null, ' +
      'change text not null',
    postgres: 'seq bigint not null primary key, brand_id bigint not null, platform text not null, account_id bigint not null, account_name text not null, ' +
      'change text not null',
  },
  /** Filled at commit: posts added and changed per account, with its brand now, numbered in brand, platform rank, account order. */
  sync_post_accounts: {
    sqlite: 'seq integer not null primary key, brand_id integer not null, platform text not null, account_id integer not null, added integer not null, ' +
      'changed integer not null',
    postgres: 'seq bigint not null primary key, brand_id bigint not null, platform text not null, account_id bigint not null, added bigint not null, ' +
      'changed bigint not null',
  },
  /**
   * Filled at commit: the ids of each sync_post_accounts row's posts (its seq), added (1) and
   * changed (0) apart, ranked by their bytes, only the first MAX_POST_IDS_PER_ACCOUNT of each.
   */
  sync_post_ids: {
    sqlite: 'seq integer not null, added integer not null, rank integer not null, id text not null, primary key (seq, added, rank)',
    postgres: 'seq bigint not null, added integer not null, rank bigint not null, id text not null, primary key (seq, added, rank)',
  },
} as const satisfies Record<string, TableDefinition>

export type ChangedTable = keyof typeof CHANGED_TABLES

/** The tables of a dialect with their column definitions (changed_counts is given its one row by startCapture). */
export function changedTablesOf (dialect: Dialect): Array<[ChangedTable, string]> {
  return (Object.entries(CHANGED_TABLES) as Array<[ChangedTable, TableDefinition]>).map(([name, definition]) => [name, definition[dialect]])
}

/** Accounts the import moved: now in another brand than before it (created ones never moved). */
const MOVED_ACCOUNTS = `select c.platform, c.account_id, c.old_brand_id from changed_accounts c
  join accounts a on a.platform = c.platform and a.account_id = c.account_id where c.created = 0 and c.old_brand_id <> a.brand_id`

/**
 * What the read model sums again after an import (src/storage/read-model/refresh.ts): every month
 * a changed range touches and the accounts it moved — nothing for an import that changed nothing.
 * Read after sync-recorder.ts has filled sync_ranges.
 */
export const CHANGED_READ_MODEL = {
  sqlite: {
    accountMonths: `with recursive m (platform, account_id, month, until) as (
        select platform, account_id, substr(since, 1, 7) || '-01', until from sync_ranges
        union all
        select platform, account_id, date(month, '+1 month'), until from m where date(month, '+1 month') <= until)
      select platform, account_id, month from m`,
    moved: MOVED_ACCOUNTS,
  },
  postgres: {
    accountMonths: `select platform, account_id, generate_series(date_trunc('month', since), until, interval '1 month')::date as month
      from sync_ranges`,
    moved: MOVED_ACCOUNTS,
  },
} as const
