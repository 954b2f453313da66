import type { PlatformCode } from './platforms.js'

/**
 * The change feed's events (docs/api-reference.md "Change feed"): what an import or an operator
 * changed, one event per brand and kind of change. The same objects are read from GET /changes
 * and pushed to webhooks. Every event is about one brand (`data.brand_id`).
 */

/** Types the feed carries, in the order the documentation lists them. */
export const CHANGE_EVENT_TYPES = [
  'analytics.updated',
  'posts.updated',
  'brand.updated',
  'account.updated',
  'access.granted',
  'access.revoked',
] as const
export type ChangeEventType = (typeof CHANGE_EVENT_TYPES)[number]

/** An inclusive range of days. */
export interface DateRange {
  since: string
  until: string
}

export interface AnalyticsUpdatedData {
  brand_id: number
  /** Canonical order (platform, then account_id); each account's changed days, ascending. */
  accounts: Array<{ platform: PlatformCode, account_id: number, dates: DateRange[] }>
}

/** The most post ids an account lists in one `posts.updated`, of those added and of those changed each. */
export const MAX_POST_IDS_PER_ACCOUNT = 100

export interface PostsUpdatedData {
  brand_id: number
  accounts: Array<{
    platform: PlatformCode
    account_id: number
    posts_added: number
    posts_changed: number
    /**
     * The ids (as GET /posts shows them) of the posts added and of those changed, ascending by
     * their bytes, at most MAX_POST_IDS_PER_ACCOUNT of each; `post_ids_truncated` when either
     * list leaves some out. Every event an import records has them; events recorded before the
     * service listed ids lack them (partners read that as truncated).
     */
    added_post_ids?: string[]
    changed_post_ids?: string[]
    post_ids_truncated?: boolean
  }>
}

export interface BrandUpdatedData {
  brand_id: number
  brand_name: string
  change: 'created' | 'renamed'
}

export interface AccountUpdatedData {
  /** The brand the event is about: for `moved_out`, the brand the account left. */
  brand_id: number
  platform: PlatformCode
  account_id: number
  account_name: string
  /** `updated`: its name, network id, avatar or permalink changed. */
  change: 'created' | 'updated' | 'moved_in' | 'moved_out'
}

export interface AccessChangedData {
  brand_id: number
}

export interface ChangeEventDataByType {
  'analytics.updated': AnalyticsUpdatedData
  'posts.updated': PostsUpdatedData
  'brand.updated': BrandUpdatedData
  'account.updated': AccountUpdatedData
  'access.granted': AccessChangedData
  'access.revoked': AccessChangedData
}

/** An event to record: its number and time are given when it is recorded (storage/changes). */
export type NewChangeEvent = {
  [T in ChangeEventType]: {
    type: T
    data: ChangeEventDataByType[T]
    /** Access events only: the one user who sees it. */
    userId?: string
  }
}[ChangeEventType]

/** The public id of an event: `evt_` + its number. */
export function eventIdOf (eventNumber: number): string {
  return `evt_${eventNumber}`
}

/** An event as the change log keeps it (its `data` as JSON text). */
export interface StoredChangeEvent {
  eventNumber: number
  type: string
  createdAt: string
  syncId: number | null
  /** The `data` member, JSON text, written verbatim. */
  data: string
}

/**
 * An event as partners receive it, from GET /changes or in a webhook's body: one rendering for
 * both, so the feed and the webhooks can never disagree on an event's content. Members in the
 * documented order (docs/api-reference.md "Change feed").
 */
export function renderChangeEvent (event: StoredChangeEvent): string {
  return `{"id":${JSON.stringify(eventIdOf(event.eventNumber))},"type":${JSON.stringify(event.type)}` +
    `,"created_at":${JSON.stringify(event.createdAt)},"sync_id":${event.syncId === null ? 'null' : String(event.syncId)},"data":${event.data}}`
}
