import type { AccountUpdatedData, AnalyticsUpdatedData, ChangeEventType, NewChangeEvent, PostsUpdatedData } from '../../domain/changes.js'
import type { PlatformCode } from '../../domain/platforms.js'

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

/** An `account.updated` event as sync-recorder.ts reads it back (already in the feed's order). */
export interface AccountEventRow {
  brand_id: number
  platform: PlatformCode
  account_id: number
  account_name: string
  change: AccountUpdatedData['change']
}

/** One inclusive range of days an account's daily rows changed, with the account's brand now. */
export interface RangeRow {
  brand_id: number
  platform: PlatformCode
  account_id: number
  since: string
  until: string
}

/** An account's posts added and changed by the import, with the account's brand now, and the first ids of each. */
export interface PostCountRow {
  brand_id: number
  platform: PlatformCode
  account_id: number
  added: number
  changed: number
  /** At most MAX_POST_IDS_PER_ACCOUNT ids of the posts added, ascending; the same of those changed. */
  addedIds: string[]
  changedIds: string[]
}

export function brandEvents (rows: readonly BrandChangeRow[]): Array<EventOf<'brand.updated'>> {
  return rows
    .filter((row) => row.created === 1 || row.old_brand_name !== row.brand_name)
    .sort((a, b) => a.brand_id - b.brand_id)
    .map((row) => ({ type: 'brand.updated', data: { brand_id: row.brand_id, brand_name: row.brand_name, change: row.created === 1 ? 'created' : 'renamed' } }))
}

/** `account.updated` events from rows already in the feed's order (sync-recorder.ts orders them in SQL). */
export function accountEventsOf (rows: readonly AccountEventRow[]): Array<EventOf<'account.updated'>> {
  return rows.map((row) => ({
    type: 'account.updated',
    data: { brand_id: row.brand_id, platform: row.platform, account_id: row.account_id, account_name: row.account_name, change: row.change },
  }))
}

/**
 * `posts.updated`, one per brand, from rows streamed in brand, platform, account order (a page at
 * a time): `add` returns the events it completed, `finish` the last one.
 */
export class PostsEvents {
  private current: PostsUpdatedData | undefined

  add (rows: readonly PostCountRow[]): Array<EventOf<'posts.updated'>> {
    const done: Array<EventOf<'posts.updated'>> = []
    for (const row of rows) {
      if (this.current?.brand_id !== row.brand_id) {
        if (this.current !== undefined) done.push({ type: 'posts.updated', data: this.current })
        this.current = { brand_id: row.brand_id, accounts: [] }
      }
      this.current.accounts.push({
        platform: row.platform,
        account_id: row.account_id,
        posts_added: row.added,
        posts_changed: row.changed,
        added_post_ids: row.addedIds,
        changed_post_ids: row.changedIds,
        post_ids_truncated: row.addedIds.length < row.added || row.changedIds.length < row.changed,
      })
    }
    return done
  }

  finish (): Array<EventOf<'posts.updated'>> {
    const last = this.current
    this.current = undefined
    return last === undefined ? [] : [{ type: 'posts.updated', data: last }]
  }
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
