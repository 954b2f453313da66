import { aggregateReportRows } from '../../../packages/client/src/export/sources.js'
import type { AnalyticsResponse } from '../../../packages/client/src/types.js'

/**
 * The rows "Download CSV" writes for an agg report: the export's (every entry, then the total and
 * average rows). A period without entries has nothing to download, so none (the button is then
 * disabled), even though the API still sends aggregates of nothing.
 */
export function csvRowsOf (report: AnalyticsResponse): Array<Record<string, unknown>> {
  return report.data.length === 0 ? [] : [...aggregateReportRows(report)]
}
