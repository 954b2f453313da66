import type { PartnerAnalyticsClient } from '../../../packages/client/src/client.js'
import type { AnalyticsQuery, AggReport, PostsQuery, PostsResponse } from '../../../packages/client/src/types.js'
import { daysInPeriod } from '../model/period.js'
import type { Entry } from '../model/series.js'
import { CancelledError } from './query-cache.js'

/** Walking the API's pages, reporting progress as the export command does (days of the period covered). */

export interface WalkProgress {
  pages: number
  entries: number
  daysCovered: number
  totalDays: number
}

/** 400 pages of 20 are 8,000 entries: beyond that a chart is unreadable and the walk takes minutes. */
export const MAX_DAILY_PAGES = 400

export class TooMuchDataError extends Error {
  constructor (readonly pages: number) {
    super(`More than ${pages * 20} daily entries: choose fewer brands or platforms, a shorter period, or monthly granularity.`)
    this.name = 'TooMuchDataError'
  }
}

/**
 * Every entry of a daily query (following next_cursor until it is absent, latest date first),
 * or the single answer of a monthly one. `isCancelled` stops a walk nobody waits for any more.
 */
export async function loadSeriesEntries (
  client: PartnerAnalyticsClient,
  query: AnalyticsQuery,
  onProgress: (progress: WalkProgress) => void,
  isCancelled: () => boolean,
): Promise<Entry[]> {
  if (query.type !== 'daily') return (await client.analytics(query)).data as Entry[]
  const entries: Entry[] = []
  let pages = 0
  for await (const page of client.dailyPages(query)) {
    pages += 1
    entries.push(...page.data as Entry[])
    const period = { since: String(page.since), until: String(page.until) }
    const oldest = page.data.at(-1)?.date
    const totalDays = daysInPeriod(period)
    const daysCovered = page.next_cursor === undefined || typeof oldest !== 'string' ? totalDays : daysInPeriod({ since: oldest, until: period.until })
    onProgress({ pages, entries: entries.length, daysCovered, totalDays })
    if (isCancelled() && page.next_cursor !== undefined) throw new CancelledError()
    if (pages >= MAX_DAILY_PAGES && page.next_cursor !== undefined) throw new TooMuchDataError(pages)
  }
  return entries
}

export async function loadAgg (client: PartnerAnalyticsClient, query: AnalyticsQuery): Promise<AggReport> {
  return await client.analytics({ ...query, type: 'agg' })
}

export async function loadPosts (client: PartnerAnalyticsClient, query: PostsQuery): Promise<PostsResponse> {
  return await client.posts(query)
}
