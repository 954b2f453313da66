import type { PlatformCode } from './platforms.js'

/**
 * A sync: one committed import, as recorded in its own transaction (docs/import.md "Syncs").
 * It says what the import read and what it actually changed; the change feed's events of the
 * import carry its id.
 */

/** Records of each kind an import read (valid ones; a key repeated three times counts three). */
export interface RecordCounts {
  brand: number
  account: number
  daily: number
  post: number
}

/**
 * Rows an import changed, by kind. "Changed" compares the row after the import with the row
 * before it: a record equal to the stored row changes nothing (docs/import.md "Syncs").
 */
export interface ChangeCounts {
  brand: { created: number, renamed: number }
  /** `updated`: name, network id, avatar or permalink; `moved`: now in another brand. */
  account: { created: number, updated: number, moved: number }
  daily: { inserted: number, changed: number }
  post: { added: number, changed: number }
}

export interface SyncCounts {
  read: RecordCounts
  changed: ChangeCounts
}

export interface SyncAccount {
  platform: PlatformCode
  account_id: number
}

export interface Sync {
  syncId: number
  /** When the import started and when it committed (ISO-8601 UTC, whole seconds). */
  startedAt: string
  committedAt: string
  /** The sources as given to the import (file paths as typed, `demo(seed=…)`). */
  sourceFiles: string[]
  counts: SyncCounts
  /** Brands whose data it changed (events' brands, the brand an account left included), ascending. */
  brandIds: number[]
  /** Accounts whose record, daily rows or posts it changed, in canonical order. */
  accounts: SyncAccount[]
  /** Its events: `eventCount` consecutive numbers from `firstEventNumber` (null when none). */
  firstEventNumber: number | null
  eventCount: number
}

/** No change at all: the counts of a sync that re-imported what the store held. */
export function noChanges (): ChangeCounts {
  return { brand: { created: 0, renamed: 0 }, account: { created: 0, updated: 0, moved: 0 }, daily: { inserted: 0, changed: 0 }, post: { added: 0, changed: 0 } }
}

/** Changes of every kind added up (an account moved and renamed counts twice). */
export function totalChanges (changed: ChangeCounts): number {
  return changed.brand.created + changed.brand.renamed + changed.account.created + changed.account.updated + changed.account.moved +
    changed.daily.inserted + changed.daily.changed + changed.post.added + changed.post.changed
}
