import type { ChangeEventType } from './changes.js'

/**
 * A page of the change feed as the services see it (docs/api-reference.md "Change feed"): where
 * it starts, which events it wants, and what it found. The wire form (cursor, envelope) is the
 * HTTP layer's.
 */

/** Where a page starts. */
export type FeedStart =
  /** After the oldest event still kept (no cursor, no start). */
  | { kind: 'oldest' }
  /** At the head: an empty page whose position is the newest event (start=latest). */
  | { kind: 'latest' }
  /** After an event a previous page ended on; `issuedAt`: when that page was served (ms since the epoch). */
  | { kind: 'after', eventNumber: number, issuedAt: number }

export interface FeedRequest {
  /** Only events of these brands (ascending); every one must be accessible. */
  brandIds?: readonly number[]
  /** Only events of these types (in CHANGE_EVENT_TYPES order). */
  types?: readonly ChangeEventType[]
  from: FeedStart
  /** Events per page, 1 to 100. */
  limit: number
}

export interface FeedPage {
  /** The page's events, each rendered by renderChangeEvent, in event order. */
  eventsJson: string[]
  /** More events can be read now (call again at once with the new position). */
  hasMore: boolean
  /** The event number the next page starts after; never below the request's. */
  position: number
}
