import type { ChangeEvent } from '../../../packages/client/src/types.js'

/**
 * What the change feed (GET /changes) says arrived since the page loaded, in words: which brands'
 * analytics or posts an import changed, and when. The page offers to refresh; it does not reload
 * by itself (the partner may be reading a figure).
 */

/** The event types that change what the views show. */
export const WATCHED_TYPES = ['analytics.updated', 'posts.updated'] as const

/** Every ~30 s while the page is visible (and at once on a change of view or filters, or on coming back to the tab). */
export const POLL_INTERVAL_MS = 30_000

/** At most this many pages of 100 events per poll (the feed says has_more; the next poll goes on). */
export const MAX_PAGES_PER_POLL = 10

export interface NewData {
  events: number
  /** The brands named, in the order first seen. */
  brandIds: number[]
  /** The imports (sync ids) that caused them. */
  syncIds: number[]
  /** The newest event's time (UTC). */
  latest: string | null
}

export function summariseChanges (events: readonly ChangeEvent[], before: NewData | null = null): NewData {
  const brandIds = [...(before?.brandIds ?? [])]
  const syncIds = [...(before?.syncIds ?? [])]
  let latest = before?.latest ?? null
  for (const event of events) {
    const data = event.data as { brand_id?: unknown }
    if (typeof data.brand_id === 'number' && !brandIds.includes(data.brand_id)) brandIds.push(data.brand_id)
    if (typeof event.sync_id === 'number' && !syncIds.includes(event.sync_id)) syncIds.push(event.sync_id)
    if (latest === null || event.created_at > latest) latest = event.created_at
  }
  return { events: (before?.events ?? 0) + events.length, brandIds, syncIds, latest }
}

/** "Evergreen Outdoors and Beacon Games", "3 brands" past three names. */
export function brandsText (brandIds: readonly number[], names: ReadonlyMap<number, string>): string {
  const named = brandIds.map((id) => names.get(id) ?? `Brand ${id}`)
  if (named.length > 3) return `${named.length} brands`
  return named.length <= 1 ? (named[0] ?? 'your brands') : `${named.slice(0, -1).join(', ')} and ${named.at(-1) ?? ''}`
}
