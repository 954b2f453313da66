import type { AccountUpdatedData, AnalyticsUpdatedData, ChangeEventType, NewChangeEvent } from '../../domain/changes.js'
import { platformRank, type PlatformCode } from '../../domain/platforms.js'

/**
 * The events of a sync, from what sync-recorder.ts reads out of the changed-key tables
 * (docs/import.md "Syncs"). Pure: rows in, events out, in the feed's order.
 */

/** An event of one type. */
export type EventOf<T extends ChangeEventType> = Extract<NewChangeEvent, { type: T }>

/** A brand the import inserted or updated, with its name before the import (null when created). */
export interface BrandChangeRow {
  brand_id: number
  brand_name: string
  created: number
  old_brand_name: string | null
}

/** An account the import inserted or updated: its row now and, unless created, before the import. */
export interface AccountChangeRow {
  platform: PlatformCode
  account_id: number
  brand_id: number
  account_name: string
  network_id: string | null
  storage_avatar: string | null
  permalink: string | null
  created: number
  old_brand_id: number | null
  old_account_name: string | null
  old_network_id: string | null
  old_storage_avatar: string | null
  old_permalink: string | null
}

/** One inclusive range of days an account's daily rows changed, with the account's brand now. */
export interface RangeRow {
  brand_id: number
  platform: PlatformCode
  account_id: number
  since: string
  until: string
}

/** An account's posts added and changed by the import, with the account's brand now. */
export interface PostCountRow {
  brand_id: number
  platform: PlatformCode
  account_id: number
  added: number
  changed: number
}

export function brandEvents (rows: readonly BrandChangeRow[]): Array<EventOf<'brand.updated'>> {
  return rows
    .filter((row) => row.created === 1 || row.old_brand_name !== row.brand_name)
    .sort((a, b) => a.brand_id - b.brand_id)
    .map((row) => ({ type: 'brand.updated', data: { brand_id: row.brand_id, brand_name: row.brand_name, change: row.created === 1 ? 'created' : 'renamed' } }))
}

/** The order of an account's events within one brand. */
const CHANGE_ORDER: Record<AccountUpdatedData['change'], number> = { created: 0, moved_in: 1, updated: 2, moved_out: 3 }

/**
 * An account created → `created` in its brand. Otherwise, in another brand than before → `moved_out`
 * for the brand it left and `moved_in` for the one it joined; its name, network id, avatar or
 * permalink different from before → `updated` (in its brand now). Ordered by brand, platform,
 * account, then that change order.
 */
export function accountEvents (rows: readonly AccountChangeRow[]): Array<EventOf<'account.updated'>> {
  const events: AccountUpdatedData[] = []
  for (const row of rows) {
    const event = (brandId: number, change: AccountUpdatedData['change']): AccountUpdatedData =>
      ({ brand_id: brandId, platform: row.platform, account_id: row.account_id, account_name: row.account_name, change })
    if (row.created === 1) {
      events.push(event(row.brand_id, 'created'))
      continue
    }
    if (row.old_brand_id !== null && row.old_brand_id !== row.brand_id) {
      events.push(event(row.old_brand_id, 'moved_out'), event(row.brand_id, 'moved_in'))
    }
    if (row.old_account_name !== row.account_name || row.old_network_id !== row.network_id ||
      row.old_storage_avatar !== row.storage_avatar || row.old_permalink !== row.permalink) {
      events.push(event(row.brand_id, 'updated'))
    }
  }
  return events
    .sort((a, b) => a.brand_id - b.brand_id || platformRank(a.platform) - platformRank(b.platform) || a.account_id - b.account_id ||
      CHANGE_ORDER[a.change] - CHANGE_ORDER[b.change])
    .map((data) => ({ type: 'account.updated', data }))
}

/** `posts.updated`, one per brand, from rows already in brand, platform, account order. */
export function postsEvents (rows: readonly PostCountRow[]): Array<EventOf<'posts.updated'>> {
  const events: Array<EventOf<'posts.updated'>> = []
  for (const row of rows) {
    let last = events.at(-1)
    if (last === undefined || last.data.brand_id !== row.brand_id) {
      last = { type: 'posts.updated', data: { brand_id: row.brand_id, accounts: [] } }
      events.push(last)
    }
    last.data.accounts.push({ platform: row.platform, account_id: row.account_id, posts_added: row.added, posts_changed: row.changed })
  }
  return events
}

/**
 * `analytics.updated`, one per brand, from range rows streamed in brand, platform, account, since
 * order (a page at a time): `add` returns the events it completed, `finish` the last one.
 */
export class AnalyticsEvents {
  private current: AnalyticsUpdatedData | undefined

  add (rows: readonly RangeRow[]): Array<EventOf<'analytics.updated'>> {
    const done: Array<EventOf<'analytics.updated'>> = []
    for (const row of rows) {
      if (this.current?.brand_id !== row.brand_id) {
        if (this.current !== undefined) done.push({ type: 'analytics.updated', data: this.current })
        this.current = { brand_id: row.brand_id, accounts: [] }
      }
      let account = this.current.accounts.at(-1)
      if (account?.platform !== row.platform || account.account_id !== row.account_id) {
        account = { platform: row.platform, account_id: row.account_id, dates: [] }
        this.current.accounts.push(account)
      }
      account.dates.push({ since: row.since, until: row.until })
    }
    return done
  }

  finish (): Array<EventOf<'analytics.updated'>> {
    const last = this.current
    this.current = undefined
    return last === undefined ? [] : [{ type: 'analytics.updated', data: last }]
  }
}
