import type { DailyAnalyticsReport } from '../../../domain/analytics.js'

/**
 * A daily page's body (DailyReport: docs/api-reference.md "Envelopes"), written around entries that
 * are JSON already (the read model renders each brand-day's entry once, at import). The members
 * come in the DailyReport schema's order; test/analytics/rendered-entries.test.ts holds this text
 * to what the schema's serializer writes for the same report.
 */
export function dailyReportJson (report: DailyAnalyticsReport, nextCursor: string | undefined): string {
  let body = `{"data":[${report.entriesJson.join(',')}],"total":${report.entriesJson.length}` +
    `,"since":${JSON.stringify(report.period.since)},"until":${JSON.stringify(report.period.until)}` +
    `,"platforms":${JSON.stringify(report.platforms ?? 'all')},"brand_ids":${JSON.stringify(report.brandIds)}`
  if (report.singleBrandId !== undefined) body += `,"brand_id":${report.singleBrandId}`
  if (nextCursor !== undefined) body += `,"next_cursor":${JSON.stringify(nextCursor)}`
  return body + '}'
}
