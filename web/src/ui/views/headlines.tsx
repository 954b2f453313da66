import type { AggReport } from '../../../../packages/client/src/types.js'
import { combinedEngagementRate } from '../../model/engagement.js'
import { describeChange, formatInteger, formatRatioAsPercent } from '../../model/format.js'
import { COMPARABLE_SHARE, formatShare, previousCoverage, type Coverage } from '../../model/coverage.js'
import { dataStatusQuery, platformQuery, type Scope } from '../../model/queries.js'
import { metricDescription, metricLabel } from '../../model/catalog.js'
import { useAgg, useDataStatus } from '../loads.js'
import { useSession } from '../session-context.js'
import { Empty, Loading, ProblemNotice } from '../notices.js'
import type { ViewProps } from '../view-props.js'

/**
 * The period's headline figures and their change against the previous period of the same
 * length: two calls to /analytics/?type=agg split by platform (this period, the previous one).
 * Sums are the API's aggregates.total; the engagement rate is the API's formula over the
 * per-platform sums (model/engagement.ts), as aggregates carry none.
 */

interface Headline {
  /** The metric: its label and meaning come from the catalogue. */
  key: string
  value: (response: AggReport) => number
  format: (value: number) => string
  hint?: string
}

/** A member of aggregates.total (the API's sum over the entries). */
function total (response: AggReport, field: 'views' | 'interactions' | 'followers' | 'new_followers' | 'posts_count'): number {
  return response.aggregates.total[field]
}

export const HEADLINES: Headline[] = [
  { key: 'views', value: (r) => total(r, 'views'), format: formatInteger },
  { key: 'interactions', value: (r) => total(r, 'interactions'), format: formatInteger },
  { key: 'engagement_rate', value: (r) => combinedEngagementRate(r.data as Array<Record<string, unknown>>), format: formatRatioAsPercent, hint: 'interactions ÷ reach or views, as a percentage' },
  { key: 'followers', value: (r) => total(r, 'followers'), format: formatInteger, hint: 'at the end of the period' },
  { key: 'new_followers', value: (r) => total(r, 'new_followers'), format: formatInteger },
  { key: 'posts_count', value: (r) => total(r, 'posts_count'), format: formatInteger },
]

export function Headlines ({ filters, period, previous, revision }: ViewProps) {
  const { session } = useSession()
  const current = useAgg(platformQuery(filters, period), revision)
  const before = useAgg(platformQuery(filters, previous), revision)
  // How much of the previous period was reported, by the accounts with data now (model/coverage.ts).
  const scope: Scope = { ...(filters.brands.length > 0 ? { brand_id: filters.brands } : {}), ...(filters.platforms.length > 0 ? { platform: filters.platforms } : {}) }
  const accountsNow = useDataStatus(dataStatusQuery(scope, period), revision)
  const accountsBefore = useDataStatus(dataStatusQuery(scope, previous), revision)
  const coverage: Coverage | undefined = accountsNow.status === 'done' && accountsBefore.status === 'done' ? previousCoverage(accountsNow.value, accountsBefore.value, previous) : undefined
  const comparable = coverage !== undefined && coverage.share >= COMPARABLE_SHARE
  return (
    <section class='panel' aria-labelledby='headlines-title'>
      <h2 id='headlines-title'>Summary</h2>
      {current.status === 'loading' && <Loading label="Loading the period's totals" />}
      {current.status === 'error' && <ProblemNotice problem={current.problem} />}
      {current.status === 'done' && current.value.data.length === 0 && <Empty period={period} what='figures' />}
      {current.status === 'done' && current.value.data.length > 0 && (
        <ul class='cards'>
          {HEADLINES.map((headline) => {
            const value = headline.value(current.value)
            const previousValue = before.status === 'done' && before.value.data.length > 0 ? headline.value(before.value) : undefined
            const change = previousValue === undefined || !comparable ? undefined : describeChange(value, previousValue, headline.format)
            return (
              <li key={headline.key} class='card' data-headline={headline.key}>
                <h3 class='card-label' title={metricDescription(session.metrics, headline.key)}>{metricLabel(session.metrics, headline.key)}</h3>
                <p class='card-value' data-value>{headline.format(value)}</p>
                {headline.hint !== undefined && <p class='card-hint'>{headline.hint}</p>}
                {before.status === 'loading' && <p class='card-change'>Loading the previous period…</p>}
                {before.status === 'error' && <p class='card-change'>Previous period: <span data-state={before.problem.kind}>{before.problem.title}</span></p>}
                {before.status === 'done' && before.value.data.length === 0 && <p class='card-change'>No data in the previous period</p>}
                {previousValue !== undefined && coverage === undefined && (accountsNow.status === 'loading' || accountsBefore.status === 'loading') && <p class='card-change'>Checking the previous period's coverage…</p>}
                {previousValue !== undefined && coverage !== undefined && !comparable && (
                  <>
                    <p class='card-change' data-coverage={coverage.share.toFixed(4)}>
                      No change shown: the previous period is {formatShare(coverage.share)} reported ({coverage.reported.toLocaleString('en-US')} of {coverage.expected.toLocaleString('en-US')} account-days)
                    </p>
                    <p class='card-previous'>Previous period: <span data-previous>{headline.format(previousValue)}</span></p>
                  </>
                )}
                {change !== undefined && previousValue !== undefined && (
                  <>
                    <p class={`card-change change-${change.direction}`} data-change>
                      <span aria-hidden='true'>{change.direction === 'up' || change.direction === 'new' ? '▲ ' : change.direction === 'down' ? '▼ ' : ''}</span>
                      {change.text}
                    </p>
                    <p class='card-previous'>Previous period: <span data-previous>{headline.format(previousValue)}</span></p>
                  </>
                )}
              </li>
            )
          })}
        </ul>
      )}
    </section>
  )
}
