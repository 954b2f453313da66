import type { PartnerAnalyticsClient } from '../client.js'
import type { AnalyticsQuery, PostsQuery } from '../types.js'
import { formatRows, type Format, type Row } from './formats.js'
import { aggregateReportRows, analyticsReport, dailyRows, postRows, type Progress } from './sources.js'

/** One export: the text to write, produced lazily once the client exists, and what to say when it is written. */
export interface ExportJob {
  text: (client: PartnerAnalyticsClient, progress: Progress) => AsyncGenerator<string>
  /** e.g. "42 rows"; read after the text has been written. */
  summary: () => string
  /** Runs once the text is complete (written, and renamed when to a file), before the summary: e.g. storing a cursor. */
  afterWrite?: () => Promise<void>
  /** Lines for standard error after the summary (e.g. the cursor to continue from). */
  epilogue?: () => string[]
}

/** "1 row", "2 rows" (the summary line: "exported 1 row to daily.csv"). */
export function rowCount (count: number): string {
  return `${count} ${count === 1 ? 'row' : 'rows'}`
}

/** Rows in the format, counted as they pass. */
function rowsJob (format: Format, rows: (client: PartnerAnalyticsClient, progress: Progress) => AsyncIterable<Row>): ExportJob {
  let count = 0
  return {
    text: async function * (client, progress) {
      yield * formatRows(format, (async function * () {
        for await (const row of rows(client, progress)) { count++; yield row }
      })())
    },
    summary: () => rowCount(count),
  }
}

/**
 * type=agg keeps the envelope's `aggregates`: as JSON the response is written as the API returns
 * it (one request, nothing to concatenate); as CSV or NDJSON the total and average follow the
 * entries as two rows marked in the `aggregate` field.
 */
function aggJob (format: Format, query: AnalyticsQuery): ExportJob {
  let entries = 0
  return {
    text: async function * (client, progress) {
      const response = await analyticsReport(client, query, progress)
      entries = response.data.length
      if (format === 'json') {
        yield JSON.stringify(response, null, 2) + '\n'
        return
      }
      yield * formatRows(format, aggregateReportRows(response))
    },
    summary: () => `${rowCount(entries)} and the aggregates (total, average)`,
  }
}

export function analyticsJob (format: Format, query: AnalyticsQuery): ExportJob {
  if (query.type === 'agg') return aggJob(format, query)
  if (query.type === 'monthly') {
    return rowsJob(format, async function * (client, progress) {
      yield * (await analyticsReport(client, query, progress)).data as Row[]
    })
  }
  return rowsJob(format, (client, progress) => dailyRows(client, query, progress))
}

export function postsJob (format: Format, query: PostsQuery): ExportJob {
  return rowsJob(format, (client, progress) => postRows(client, query, progress))
}
