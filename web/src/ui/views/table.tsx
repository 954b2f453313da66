import type { AccountStatus } from '../../../../packages/client/src/types.js'
import { metricDescription, metricHeading } from '../../model/catalog.js'
import { formatDecimal2, formatInteger, formatRatioAsPercent, formatUpTo2 } from '../../model/format.js'
import { platformName } from '../../model/platforms.js'
import { analyticsExportArgs, dataStatusQuery, tableQuery } from '../../model/queries.js'
import { formatRanges, groupOfEntry, inGroup, type EntryStatus } from '../../model/status.js'
import { csvRowsOf } from '../agg-csv.js'
import { DownloadCsv } from '../download-csv.js'
import { useAgg, useDataStatus } from '../loads.js'
import { MetricCell } from '../metric-cell.js'
import { Empty, Loading, ProblemNotice } from '../notices.js'
import { useSession } from '../session-context.js'
import type { ViewProps } from '../view-props.js'

/**
 * The agg table: one row per brand, account or platform (and platform when platforms are
 * chosen), then the API's own total and average rows (aggregates.total, aggregates.average).
 * Aggregates carry no engagement rate, so those two cells say so instead of computing one.
 * Each row says how many of its account-days reported (include=status) and, when some did not,
 * which accounts missed which days (GET /data-status). Column labels and their meanings come
 * from the metric catalogue.
 */

const COLUMNS: Array<{ field: string, format: (value: unknown) => string }> = [
  { field: 'views', format: formatInteger },
  { field: 'interactions', format: formatInteger },
  { field: 'engagement_rate', format: formatRatioAsPercent },
  { field: 'followers', format: formatInteger },
  { field: 'new_followers', format: formatInteger },
  { field: 'posts_count', format: formatInteger },
  { field: 'posts_per_day', format: formatDecimal2 },
  { field: 'revenue', format: formatDecimal2 },
]

/** The row's completeness: account-days with data of those inside its accounts' coverage. */
function DataCell ({ status }: { status: EntryStatus | undefined }) {
  if (status === undefined) return <td class='no-value'>—</td>
  const complete = status.reported >= status.expected
  return (
    <td data-field='status' class={complete ? undefined : 'incomplete-value'} data-incomplete={complete ? undefined : ''}>
      {complete ? '' : '⚠ '}{formatInteger(status.reported)} of {formatInteger(status.expected)}
    </td>
  )
}

/** Under the table: for each row with missing account-days, which accounts missed which days. */
function MissingList ({ rows }: { rows: Array<{ label: string, accounts: AccountStatus[] }> }) {
  const items = rows.flatMap(({ label, accounts }) => accounts
    .filter((account) => account.days_reported < account.days_expected)
    .map((account) => ({ key: `${label}|${account.platform}:${account.account_id}`, text: `${label}: ${account.account_name} missed ${account.days_expected - account.days_reported} of ${account.days_expected} days (${formatRanges(account.missing)})` })))
  if (items.length === 0) return null
  return (
    <div class='incomplete' data-incomplete-count={items.length}>
      <h3>⚠ Missing days in this period</h3>
      <ul>{items.map((item) => <li key={item.key} data-missing-account>{item.text}</li>)}</ul>
    </div>
  )
}

export function TableView ({ period, scope, revision }: ViewProps) {
  const { session } = useSession()
  const query = tableQuery(scope, period)
  const state = useAgg(query, revision)
  const status = useDataStatus(dataStatusQuery(scope, period), revision)
  const accounts = status.status === 'done' ? status.value : []
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
          <>
            <div class='table-scroll' tabIndex={0} role='region' aria-label='Totals table'>
              <table class='data' data-agg-table='scope'>
                <caption>Totals for {period.since} – {period.until}; the last two rows are the API's total and average over the rows above. The last column counts the account-days with data of those inside the accounts' coverage (⚠: some are missing, listed below).</caption>
                <thead>
                  <tr>
                    {hasName && <th scope='col'>{scope.account_id !== undefined ? 'Account' : 'Brand'}</th>}
                    {hasPlatform && <th scope='col'>Platform</th>}
                    {COLUMNS.map((column) => <th key={column.field} scope='col' title={metricDescription(session.metrics, column.field)}>{metricHeading(session.metrics, column.field)}</th>)}
                    <th scope='col'>Account-days with data</th>
                  </tr>
                </thead>
                <tbody>
                  {entries.map((entry, index) => (
                    <tr key={index} data-row={String(entry.account_id ?? entry.brand_id ?? '') + '|' + String(entry.platform ?? '')}>
                      {hasName && <th scope='row'>{String(entry.name ?? '')}</th>}
                      {hasPlatform && (hasName ? <td>{platformName(String(entry.platform))}</td> : <th scope='row'>{platformName(String(entry.platform))}</th>)}
                      {COLUMNS.map((column) => <MetricCell key={column.field} row={entry} field={column.field} format={column.format} />)}
                      <DataCell status={state.value.statuses[index]} />
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
                      <td />
                    </tr>
                  ))}
                </tfoot>
              </table>
            </div>
            <MissingList rows={entries.map((entry) => ({
              label: [entry.name, typeof entry.platform === 'string' ? platformName(entry.platform) : undefined].filter((part) => typeof part === 'string').join(' · '),
              accounts: accounts.filter((account) => inGroup(account, groupOfEntry(entry))),
            }))}
            />
          </>
        )
      })()}
    </section>
  )
}
