import type { PartnerAnalyticsClient } from '../client.js'
import type { AnalyticsQuery, AnalyticsResponse, PostsQuery } from '../types.js'
import type { Row } from './formats.js'

/**
 * What an export walks: every row of the query, page after page, with progress measured in days
 * of the period covered so far (daily entries and posts come latest first).
 */

export interface Progress {
  /** Days of the period; known once the first page arrives (the server resolves default dates). */
  start: (totalDays: number) => void
  /** Days covered so far and rows so far. */
  update: (daysCovered: number, rows: number) => void
  /** The export ended early (an error): leave the terminal line clean for the message. */
  stop: () => void
}

const DAY_MS = 86_400_000
const daysBetween = (from: string, to: string): number => Math.round((Date.parse(to) - Date.parse(from)) / DAY_MS) + 1

/** type=monthly and type=agg come whole in one response. */
export async function analyticsReport (client: PartnerAnalyticsClient, query: AnalyticsQuery, progress: Progress): Promise<AnalyticsResponse> {
  progress.start(1)
  const response = await client.analytics(query)
  progress.update(1, response.data.length)
  return response
}

/**
 * An agg report as CSV or NDJSON rows: every entry, then the envelope's `aggregates` as two more
 * rows. The first field, `aggregate`, tells them apart: null on entries, "total" and "average" on
 * the last two rows (docs/client.md), which is where a spreadsheet reader looks for totals.
 */
export function * aggregateReportRows (response: AnalyticsResponse): Generator<Row> {
  for (const entry of response.data) yield { aggregate: null, ...entry }
  if (!('aggregates' in response)) return
  yield { aggregate: 'total', ...response.aggregates.total }
  yield { aggregate: 'average', ...response.aggregates.average }
}

/** Every daily entry of the period, page after page. */
export async function * dailyRows (client: PartnerAnalyticsClient, query: AnalyticsQuery, progress: Progress): AsyncGenerator<Row> {
  let rows = 0
  let started = false
  for await (const page of client.dailyPages(query)) {
    const since = String(page.since)
    const until = String(page.until)
    if (!started) { progress.start(daysBetween(since, until)); started = true }
    for (const entry of page.data) { rows++; yield entry as Row }
    const oldest = page.data.at(-1)?.date
    const covered = page.next_cursor === undefined || typeof oldest !== 'string' ? daysBetween(since, until) : daysBetween(oldest, until)
    progress.update(covered, rows)
  }
}

export async function * postRows (client: PartnerAnalyticsClient, query: PostsQuery, progress: Progress): AsyncGenerator<Row> {
  let rows = 0
  let started = false
  for await (const page of client.postPages(query)) {
    const since = String(page.since)
    const until = String(page.until)
    if (!started) { progress.start(daysBetween(since, until)); started = true }
    for (const post of page.data) { rows++; yield post as Row }
    // Progress by date holds only for the default order (created_time, latest first); otherwise it fills at the end.
    const byDate = (query.order_by ?? 'created_time') === 'created_time' && (query.order ?? 'desc') === 'desc'
    const oldest = String(page.data.at(-1)?.created_time ?? since).slice(0, 10)
    const covered = page.next_cursor === null ? daysBetween(since, until) : byDate ? daysBetween(oldest, until) : 0
    progress.update(covered, rows)
  }
}
