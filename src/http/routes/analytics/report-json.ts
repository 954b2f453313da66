import type { DailyAnalyticsReport, EntryStatus, MonthlyAnalyticsReport } from '../../../domain/analytics.js'

/**
 * A daily page's or a monthly report's body (DailyReport, MonthlyReport: docs/api-reference.md
 * "Envelopes"), written around entries that are JSON already: a brand-day's daily entry is
 * rendered once, at import; a monthly report's entries where it was computed. The members come in
 * the schemas' order; test/analytics/rendered-entries.test.ts holds this text to what each schema's
 * serializer writes for the same report.
 */
export function reportJson (report: DailyAnalyticsReport | MonthlyAnalyticsReport, nextCursor: string | undefined): string {
  const entries = report.statuses === undefined ? report.entriesJson : withStatuses(report.entriesJson, report.statuses)
  let body = `{"data":[${entries.join(',')}],"total":${report.entriesJson.length}` +
    `,"since":${JSON.stringify(report.period.since)},"until":${JSON.stringify(report.period.until)}` +
    `,"platforms":${JSON.stringify(report.platforms ?? 'all')},"brand_ids":${JSON.stringify(report.brandIds)}`
  if (report.singleBrandId !== undefined) body += `,"brand_id":${report.singleBrandId}`
  if (nextCursor !== undefined) body += `,"next_cursor":${JSON.stringify(nextCursor)}`
  if (report.through !== undefined) body += `,"data_through":${JSON.stringify(report.through.dataThrough)},"not_synced":${JSON.stringify(report.through.notSynced)}`
  return body + '}'
}

/**
 * include=status: each entry's status members appended after its last field, where the entry
 * schemas declare them; the entry's own text is kept as it is, byte for byte.
 */
function withStatuses (entriesJson: readonly string[], statuses: readonly EntryStatus[]): string[] {
  return entriesJson.map((json, index) => {
    const status = statuses[index]
    return status === undefined ? json : `${json.slice(0, -1)},${JSON.stringify(status).slice(1)}`
  })
}
