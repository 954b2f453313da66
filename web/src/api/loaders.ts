import type { PartnerAnalyticsClient } from '../../../packages/client/src/client.js'
import type { AccountStatus, AnalyticsQuery, AggReport, DataStatusQuery, PostsQuery, PostsResponse, ReportRequest, ReportResponse } from '../../../packages/client/src/types.js'
import { daysInPeriod } from '../model/period.js'
import type { Entry } from '../model/series.js'
import { splitStatus, type EntryStatus } from '../model/status.js'
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

/** Entries as the export writes them, and each one's include=status completeness (same order). */
export interface SeriesData {
  entries: Entry[]
  statuses: Array<EntryStatus | undefined>
}

function splitAll (data: readonly unknown[], into: SeriesData): void {
  for (const item of data) {
    const { entry, status } = splitStatus(item as Entry)
    into.entries.push(entry)
    into.statuses.push(status)
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
): Promise<SeriesData> {
  const series: SeriesData = { entries: [], statuses: [] }
  if (query.type !== 'daily') {
    splitAll((await client.analytics(query)).data, series)
    return series
  }
  const entries = series.entries
  let pages = 0
  for await (const page of client.dailyPages(query)) {
    pages += 1
    splitAll(page.data, series)
    const period = { since: String(page.since), until: String(page.until) }
    const oldest = page.data.at(-1)?.date
    const totalDays = daysInPeriod(period)
    const daysCovered = page.next_cursor === undefined || typeof oldest !== 'string' ? totalDays : daysInPeriod({ since: oldest, until: period.until })
    onProgress({ pages, entries: entries.length, daysCovered, totalDays })
    if (isCancelled() && page.next_cursor !== undefined) throw new CancelledError()
    if (pages >= MAX_DAILY_PAGES && page.next_cursor !== undefined) throw new TooMuchDataError(pages)
  }
  return series
}

/** An agg report; with include=status its entries come back as the export writes them, their status beside. */
export async function loadAgg (client: PartnerAnalyticsClient, query: AnalyticsQuery): Promise<AggReport & { statuses: Array<EntryStatus | undefined> }> {
  const report = await client.analytics({ ...query, type: 'agg' })
  const series: SeriesData = { entries: [], statuses: [] }
  splitAll(report.data, series)
  return { ...report, data: series.entries as AggReport['data'], statuses: series.statuses }
}

/** 20 pages of 100 accounts: more than any chart can name. */
const MAX_STATUS_PAGES = 20

/** Every account's data status for the query (GET /data-status, following next_cursor). */
export async function loadDataStatus (client: PartnerAnalyticsClient, query: Omit<DataStatusQuery, 'cursor' | 'limit'>): Promise<AccountStatus[]> {
  const accounts: AccountStatus[] = []
  let cursor: string | undefined
  for (let pages = 0; pages < MAX_STATUS_PAGES; pages++) {
    const page = await client.dataStatus({ ...query, limit: 100, cursor })
    accounts.push(...page.data)
    cursor = page.next_cursor ?? undefined
    if (cursor === undefined) break
  }
  return accounts
}

export async function loadPosts (client: PartnerAnalyticsClient, query: PostsQuery): Promise<PostsResponse> {
  return await client.posts(query)
}

/** One page of POST /reports (docs/reports.md). */
export async function loadReport (client: PartnerAnalyticsClient, request: ReportRequest): Promise<ReportResponse> {
  return await client.report(request)
}
