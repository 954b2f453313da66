import { useMemo } from 'preact/hooks'
import type { ReportRow } from '../../../../packages/client/src/types.js'
import { COMPARE_METRICS, POST_LIMITS, type CompareMetric } from '../../model/filters.js'
import { COMPARABLE_SHARE, accountCoverage, noChangeText } from '../../model/coverage.js'
import { formatInteger, formatRatioAsPercent } from '../../model/format.js'
import { accountsField, platformName, PLATFORMS } from '../../model/platforms.js'
import { chosenScope, dataStatusQuery } from '../../model/queries.js'
import { ACCOUNT_METRICS, describeReportChange, reportChange, topAccountsReport } from '../../model/reports.js'
import { metricDescription, metricLabel } from '../../model/catalog.js'
import { useDataStatus, useReport } from '../loads.js'
import { MetricCell } from '../metric-cell.js'
import { Empty, Loading, ProblemNotice } from '../notices.js'
import { useSession } from '../session-context.js'
import type { ViewProps } from '../view-props.js'

/**
 * The top N accounts of the chosen brands and platforms by one metric over the period: one POST
 * /reports with dimension account, ordered by that metric descending, limit N (model/reports.ts).
 * Each figure is the report's (followers: the account's last reported value in the period; the
 * engagement rate from its summed parts), with the account-days behind it (include status), and
 * the change of the chosen metric against the previous period under the Summary's rule: shown only
 * when the account's previous period is at least 90 % reported (GET /data-status of that period),
 * the report's own change when its comparison is complete, else worked out from its two figures.
 */

const formatOf = (metric: string) => metric === 'engagement_rate' ? formatRatioAsPercent : formatInteger

export function AccountsView ({ filters, period, previous, navigate, revision }: ViewProps) {
  const { session } = useSession()
  const label = (name: string) => metricLabel(session.metrics, name)
  const report = useReport(topAccountsReport(filters, period, previous), revision)
  const scope = chosenScope(filters)
  const before = useDataStatus(dataStatusQuery(scope, previous), revision)
  // An account's brand, from /me (the report's account rows name the account, not its brand).
  const brandOf = useMemo(() => {
    const brands = new Map<string, string>()
    for (const brand of session.profile.brands) {
      for (const platform of PLATFORMS) {
        for (const account of (brand as Record<string, unknown>)[accountsField(platform)] as Array<{ account_id: number }> | undefined ?? []) {
          brands.set(`${platform}:${account.account_id}`, brand.brand_name)
        }
      }
    }
    return brands
  }, [session])
  const rows: ReportRow[] = report.status === 'done' ? report.value.rows : []
  const format = formatOf(filters.metric)
  const changeCell = (row: ReportRow): string => {
    if (before.status === 'loading') return 'Checking the previous period…'
    if (before.status === 'error') return `Previous period: ${before.problem.title}`
    const coverage = accountCoverage(before.value, String(row.platform), Number(row.account_id), previous)
    if (coverage.share < COMPARABLE_SHARE) return noChangeText(coverage)
    const change = reportChange(row, filters.metric)
    return change === undefined ? '—' : describeReportChange(change, format).text
  }
  return (
    <section class='panel' aria-labelledby='accounts-title'>
      <h2 id='accounts-title'>Top accounts</h2>
      <div class='pickers'>
        <label for='accounts-metric'>By</label>
        <select id='accounts-metric' value={filters.metric} onChange={(event) => navigate({ ...filters, metric: event.currentTarget.value as CompareMetric })}>
          {COMPARE_METRICS.map((value) => <option key={value} value={value}>{label(value)}</option>)}
        </select>
        <label for='accounts-limit'>Show</label>
        <select id='accounts-limit' value={String(filters.limit)} onChange={(event) => navigate({ ...filters, limit: Number(event.currentTarget.value) })}>
          {POST_LIMITS.map((value) => <option key={value} value={String(value)}>{value} accounts</option>)}
        </select>
      </div>
      {report.status === 'loading' && <Loading label='Loading the top accounts' />}
      {report.status === 'error' && <ProblemNotice problem={report.problem} />}
      {report.status === 'done' && rows.length === 0 && <Empty period={period} what='accounts with data' />}
      {report.status === 'done' && rows.length > 0 && (
        <>
          <p class='hint' data-accounts-count>
            {report.value.total_rows <= rows.length
              ? `All ${rows.length} accounts with data in the period.`
              : `The top ${rows.length} of ${report.value.total_rows} accounts with data in the period.`}
          </p>
          <div class='table-scroll' tabIndex={0} role='region' aria-label='Top accounts table'>
            <table class='data' data-accounts-table>
              <caption>Accounts by {label(filters.metric).toLowerCase()}, {period.since} – {period.until}, highest first</caption>
              <thead>
                <tr>
                  <th scope='col'>Rank</th><th scope='col' class='text'>Account</th><th scope='col' class='text'>Platform</th><th scope='col' class='text'>Brand</th>
                  {ACCOUNT_METRICS.map((metric) => <th key={metric} scope='col' title={metricDescription(session.metrics, metric)} aria-sort={metric === filters.metric ? 'descending' : undefined}>{label(metric)}</th>)}
                  <th scope='col' title={`The change of ${label(filters.metric).toLowerCase()} against ${previous.since} – ${previous.until}`}>Change in {label(filters.metric).toLowerCase()}</th>
                  <th scope='col' title='Days with data of the days the account was expected to report in the period (within its coverage)'>Days reported</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((row, index) => (
                  <tr key={`${String(row.platform)}:${String(row.account_id)}`} data-account={`${String(row.platform)}:${String(row.account_id)}`}>
                    <td data-field='rank'>{index + 1}</td>
                    <th scope='row' class='text'>{row.account_name}</th>
                    <td class='text'>{platformName(String(row.platform))}</td>
                    <td class='text'>{brandOf.get(`${String(row.platform)}:${String(row.account_id)}`) ?? '—'}</td>
                    {ACCOUNT_METRICS.map((metric) => <MetricCell key={metric} row={row.metrics} field={metric} format={formatOf(metric)} />)}
                    <td data-field='change' class='wrap-change'>{changeCell(row)}</td>
                    <td data-field='status' class={row.accounts_reported !== undefined && row.accounts_expected !== undefined && row.accounts_reported < row.accounts_expected ? 'incomplete-value' : undefined}>
                      {formatInteger(row.accounts_reported)} of {formatInteger(row.accounts_expected)}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </section>
  )
}
