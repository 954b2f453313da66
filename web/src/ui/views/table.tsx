import { formatDecimal2, formatInteger, formatRatioAsPercent, formatUpTo2 } from '../../model/format.js'
import { platformName } from '../../model/platforms.js'
import { analyticsExportArgs, tableQuery } from '../../model/queries.js'
import { csvRowsOf } from '../agg-csv.js'
import { DownloadCsv } from '../download-csv.js'
import { useAgg } from '../loads.js'
import { MetricCell } from '../metric-cell.js'
import { Empty, Loading, ProblemNotice } from '../notices.js'
import type { ViewProps } from '../view-props.js'

/**
 * The agg table: one row per brand, account or platform (and platform when platforms are
 * chosen), then the API's own total and average rows (aggregates.total, aggregates.average).
 * Aggregates carry no engagement rate, so those two cells say so instead of computing one.
 */

const COLUMNS: Array<{ field: string, label: string, format: (value: unknown) => string }> = [
  { field: 'views', label: 'Views', format: formatInteger },
  { field: 'interactions', label: 'Interactions', format: formatInteger },
  { field: 'engagement_rate', label: 'Engagement rate', format: formatRatioAsPercent },
  { field: 'followers', label: 'Followers', format: formatInteger },
  { field: 'new_followers', label: 'New followers', format: formatInteger },
  { field: 'posts_count', label: 'Posts', format: formatInteger },
  { field: 'posts_per_day', label: 'Posts per day', format: formatDecimal2 },
  { field: 'revenue', label: 'Revenue', format: formatDecimal2 },
]

export function TableView ({ period, scope, revision }: ViewProps) {
  const query = tableQuery(scope, period)
  const state = useAgg(query, revision)
  return (
    <section class='panel' aria-labelledby='table-title'>
      <div class='panel-head'>
        <h2 id='table-title'>Totals by {scope.account_id !== undefined ? 'account' : scope.split_by_platform === true ? 'platform' : 'brand'}</h2>
        {state.status === 'done' && <DownloadCsv rows={csvRowsOf(state.value)} filename={`analytics-agg-${period.since}-${period.until}.csv`} exportArgs={analyticsExportArgs(query)} />}
      </div>
      {state.status === 'loading' && <Loading label='Loading the totals' />}
      {state.status === 'error' && <ProblemNotice problem={state.problem} />}
      {state.status === 'done' && state.value.data.length === 0 && <Empty period={period} what='figures' />}
      {state.status === 'done' && state.value.data.length > 0 && (() => {
        const entries = state.value.data as Array<Record<string, unknown>>
        const aggregates = (state.value.aggregates ?? {}) as { total?: Record<string, unknown>, average?: Record<string, unknown> }
        const hasName = entries.some((entry) => 'name' in entry)
        const hasPlatform = entries.some((entry) => typeof entry.platform === 'string')
        const labelColumns = (hasName ? 1 : 0) + (hasPlatform ? 1 : 0)
        return (
          <div class='table-scroll' tabIndex={0} role='region' aria-label='Totals table'>
            <table class='data' data-agg-table='scope'>
              <caption>Totals for {period.since} – {period.until}; the last two rows are the API's total and average over the rows above.</caption>
              <thead>
                <tr>
                  {hasName && <th scope='col'>{scope.account_id !== undefined ? 'Account' : 'Brand'}</th>}
                  {hasPlatform && <th scope='col'>Platform</th>}
                  {COLUMNS.map((column) => <th key={column.field} scope='col'>{column.label}</th>)}
                </tr>
              </thead>
              <tbody>
                {entries.map((entry, index) => (
                  <tr key={index} data-row={String(entry.account_id ?? entry.brand_id ?? '') + '|' + String(entry.platform ?? '')}>
                    {hasName && <th scope='row'>{String(entry.name ?? '')}</th>}
                    {hasPlatform && (hasName ? <td>{platformName(String(entry.platform))}</td> : <th scope='row'>{platformName(String(entry.platform))}</th>)}
                    {COLUMNS.map((column) => <MetricCell key={column.field} row={entry} field={column.field} format={column.format} />)}
                  </tr>
                ))}
              </tbody>
              <tfoot>
                {(['total', 'average'] as const).map((kind) => (
                  <tr key={kind} data-row={kind}>
                    <th scope='row' colSpan={Math.max(1, labelColumns)}>{kind === 'total' ? 'Total' : 'Average'}</th>
                    {COLUMNS.map((column) => column.field === 'engagement_rate'
                      ? <td key={column.field} class='no-value' title='not in the API aggregates'>—<span class='visually-hidden'> (not in the API aggregates)</span></td>
                      : <MetricCell key={column.field} row={aggregates[kind] ?? {}} field={column.field} format={kind === 'average' && column.format === formatInteger ? formatUpTo2 : column.format} />)}
                  </tr>
                ))}
              </tfoot>
            </table>
          </div>
        )
      })()}
    </section>
  )
}
