import { LRUCache } from 'lru-cache'
import type { AnalyticsReport, AnalyticsRequest } from '../../domain/analytics.js'
import type { Scope } from '../../domain/scope.js'

/**
 * Answers of GET /analytics/ kept for the next identical question (docs/storage.md "Report cache"),
 * on top of the read model, never instead of it. The key is the request as validated (its period
 * already absolute: "today" is in it) and the scope it was resolved to (the brands and accounts the
 * user may read now, so a revoked grant never reads a kept answer); each kept answer carries the
 * store's data version it was computed at (src/storage/queries/data-version.ts), and is used only
 * while the store still reports that version: no kept answer outlives an import.
 *
 * A question is kept the second time it is asked within the last RECENT_QUESTIONS, not the first:
 * most questions of a varied load are never asked again, and keeping them would cost every one of
 * them the version read and the cache's churn for nothing. Bounded by the text it holds, least
 * recently used first out.
 */
export interface ReportCache {
  /** The request's key, to pass to the other methods. */
  keyOf: (scope: Scope, request: AnalyticsRequest) => string
  /** The kept answer and the data version it was computed at, if any. */
  get: (key: string) => KeptReport | undefined
  /** Whether the question was asked recently (and notes that it was asked now). */
  askedBefore: (key: string) => boolean
  set: (key: string, kept: KeptReport) => void
}

export interface KeptReport {
  version: string
  report: AnalyticsReport
}

/** About 600 daily pages, or a few 100-brand monthly years: what a dashboard's polls ask again. */
export const REPORT_CACHE_BYTES = 2 * 1024 * 1024

/** Questions remembered (their keys only) to notice the second asking. */
export const RECENT_QUESTIONS = 4096

/** Roughly the bytes a report holds: its rendered entries' text, or ~600 B per agg entry. */
function sizeOf (report: AnalyticsReport): number {
  const overhead = 512 + (report.statuses?.length ?? 0) * 300
  if (report.type === 'agg') return overhead + report.entries.length * 600
  let size = overhead
  for (const json of report.entriesJson) size += json.length
  return size
}

export function createReportCache (maxBytes = REPORT_CACHE_BYTES): ReportCache {
  const kept = new LRUCache<string, KeptReport>({ maxSize: maxBytes, sizeCalculation: (value, key) => sizeOf(value.report) + key.length })
  // A ring of recent keys: a set with its oldest member dropped first, no per-entry bookkeeping.
  const recent = new Set<string>()
  const ring: string[] = new Array<string>(RECENT_QUESTIONS)
  let next = 0
  return {
    keyOf: (scope, request) => `${JSON.stringify(request)}\n${JSON.stringify(scope)}`,
    get: (key) => kept.get(key),
    askedBefore: (key) => {
      if (recent.has(key)) return true
      const oldest = ring[next]
      if (oldest !== undefined) recent.delete(oldest)
      ring[next] = key
      next = (next + 1) % RECENT_QUESTIONS
      recent.add(key)
      return false
    },
    set: (key, value) => {
      // An answer larger than a tenth of the cache would push out many others for one question.
      if (sizeOf(value.report) <= maxBytes / 10) kept.set(key, value)
    },
  }
}
