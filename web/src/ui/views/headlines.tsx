import type { ReportRow } from '../../../../packages/client/src/types.js'
import { formatInteger, formatRatioAsPercent } from '../../model/format.js'
import { COMPARABLE_SHARE, formatShare, previousCoverage, type Coverage } from '../../model/coverage.js'
import { chosenScope, dataStatusQuery } from '../../model/queries.js'
import { describeReportChange, headlineReport, reportChange, type HeadlineMetric } from '../../model/reports.js'
import { metricDescription, metricLabel } from '../../model/catalog.js'
import { useDataStatus, useReport } from '../loads.js'
import { useSession } from '../session-context.js'
import { Empty, Loading, ProblemNotice } from '../notices.js'
import type { ViewProps } from '../view-props.js'

/**
 * The period's headline figures and their change against the previous period of the same length:
 * one POST /reports with the comparison and include status (model/reports.ts). Every figure is the
 * report's, by each metric's catalogue rule; the change is the report's when its comparison is
 * complete. Whether a change is shown at all is the page's 90 % rule (model/coverage.ts, from
 * GET /data-status of both periods): under it the card shows the previous period's coverage.
 */

interface Headline {
  key: HeadlineMetric
  format: (value: number) => string
  hint?: string
}

export const HEADLINES: Headline[] = [
  { key: 'views', format: formatInteger },
  { key: 'interactions', format: formatInteger },
  { key: 'engagement_rate', format: formatRatioAsPercent, hint: 'interactions ÷ reach or views, as a percentage' },
  { key: 'followers', format: formatInteger, hint: "each account's last reported value in the period" },
  { key: 'new_followers', format: formatInteger },
  { key: 'posts_count', format: formatInteger },
]

export function Headlines ({ filters, period, previous, revision }: ViewProps) {
  const { session } = useSession()
  const report = useReport(headlineReport(filters, period, previous), revision)
  // How much of the previous period was reported, by the accounts with data now (model/coverage.ts).
  const scope = chosenScope(filters)
  const accountsNow = useDataStatus(dataStatusQuery(scope, period), revision)
  const accountsBefore = useDataStatus(dataStatusQuery(scope, previous), revision)
  const coverage: Coverage | undefined = accountsNow.status === 'done' && accountsBefore.status === 'done' ? previousCoverage(accountsNow.value, accountsBefore.value, previous) : undefined
  const comparable = coverage !== undefined && coverage.share >= COMPARABLE_SHARE
  const row: ReportRow | undefined = report.status === 'done' ? report.value.rows[0] : undefined
  return (
    <section class='panel' aria-labelledby='headlines-title'>
      <h2 id='headlines-title'>Summary</h2>
      {report.status === 'loading' && <Loading label="Loading the period's totals" />}
      {report.status === 'error' && <ProblemNotice problem={report.problem} />}
      {report.status === 'done' && row === undefined && <Empty period={period} what='figures' />}
      {row !== undefined && row.accounts_expected !== undefined && (
        <p class='hint summary-status' data-summary-status>
          This period: {(row.accounts_reported ?? 0).toLocaleString('en-US')} of {row.accounts_expected.toLocaleString('en-US')} account-days reported.
          {coverage !== undefined && ` Previous period: ${formatShare(coverage.share)} reported (${coverage.reported.toLocaleString('en-US')} of ${coverage.expected.toLocaleString('en-US')} account-days)`}
          {coverage !== undefined && (comparable && row.comparison?.complete === false ? ", not wholly: each change is worked out from the report's two figures by its rule." : '.')}
        </p>
      )}
      {row !== undefined && (
        <ul class='cards'>
          {HEADLINES.map((headline) => {
            const value = row.metrics[headline.key]
            const previousValue = row.comparison?.metrics[headline.key] ?? undefined
            const change = comparable ? reportChange(row, headline.key) : undefined
            const described = change === undefined ? undefined : describeReportChange(change, headline.format)
            return (
              <li key={headline.key} class='card' data-headline={headline.key}>
                <h3 class='card-label' title={metricDescription(session.metrics, headline.key)}>{metricLabel(session.metrics, headline.key)}</h3>
                <p class='card-value' data-value>{typeof value === 'number' ? headline.format(value) : '—'}</p>
                {headline.hint !== undefined && <p class='card-hint'>{headline.hint}</p>}
                {coverage === undefined && (accountsNow.status === 'loading' || accountsBefore.status === 'loading') && <p class='card-change'>Checking the previous period's coverage…</p>}
                {accountsBefore.status === 'error' && <p class='card-change'>Previous period: <span data-state={accountsBefore.problem.kind}>{accountsBefore.problem.title}</span></p>}
                {coverage !== undefined && !comparable && (
                  <p class='card-change' data-coverage={coverage.share.toFixed(4)}>
                    No change shown: the previous period is {formatShare(coverage.share)} reported ({coverage.reported.toLocaleString('en-US')} of {coverage.expected.toLocaleString('en-US')} account-days)
                  </p>
                )}
                {described !== undefined && change !== undefined && (
                  <p class={`card-change change-${described.direction}`} data-change data-change-source={change.source}>
                    <span aria-hidden='true'>{described.direction === 'up' || described.direction === 'new' ? '▲ ' : described.direction === 'down' ? '▼ ' : ''}</span>
                    {described.text}
                  </p>
                )}
                {typeof previousValue === 'number' && coverage !== undefined && <p class='card-previous'>Previous period: <span data-previous>{headline.format(previousValue)}</span></p>}
              </li>
            )
          })}
        </ul>
      )}
    </section>
  )
}
