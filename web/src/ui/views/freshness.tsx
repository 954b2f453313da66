import { dataStatusQuery } from '../../model/queries.js'
import { formatAgo, formatRanges, freshnessOf } from '../../model/status.js'
import { useDataStatus } from '../loads.js'
import { Loading, ProblemNotice } from '../notices.js'
import type { ViewProps } from '../view-props.js'

/**
 * Per brand in scope: "data through DATE, synced AGO" and the days the period misses, from
 * GET /data-status (every page). **Ruling:** a brand's data goes through the earliest last day
 * among its accounts that have data (every account has data up to it; when some go further, the
 * latest is said too); it was synced when an import last changed any of its accounts.
 */
export function Freshness ({ scope, period, brandNames, revision }: ViewProps) {
  const state = useDataStatus(dataStatusQuery(scope, period), revision)
  const now = Date.now()
  return (
    <section class='panel' aria-labelledby='freshness-title'>
      <h2 id='freshness-title'>Data status</h2>
      {state.status === 'loading' && <Loading label='Loading the data status' />}
      {state.status === 'error' && <ProblemNotice problem={state.problem} />}
      {state.status === 'done' && state.value.length === 0 && <p class='hint'>No accounts in this scope.</p>}
      {state.status === 'done' && state.value.length > 0 && (
        <ul class='freshness'>
          {freshnessOf(state.value, [...new Set(state.value.map((account) => account.brand_id))]).map((brand) => (
            <li key={brand.brandId} data-freshness={brand.brandId}>
              <strong>{brandNames.get(brand.brandId) ?? `Brand ${brand.brandId}`}</strong>{': '}
              <span data-through>
                {brand.dataThrough === null ? 'no data yet' : `data through ${brand.dataThrough}`}
                {brand.latest !== null && ` (some accounts through ${brand.latest})`}
              </span>
              {', '}
              {brand.syncedAt === null
                ? <span data-synced>sync time not recorded</span>
                : <span data-synced>synced <time dateTime={brand.syncedAt} title={brand.syncedAt}>{formatAgo(brand.syncedAt, now)}</time></span>}
              {brand.gaps.length > 0 && (
                <span class='freshness-gaps' data-gaps>
                  {'. ⚠ Missing in this period: '}
                  {brand.gaps.map(({ account, days }) => `${account.account_name} (${countDays(days)}: ${formatRanges(account.missing)})`).join('; ')}
                </span>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}

function countDays (days: number): string {
  return `${days} ${days === 1 ? 'day' : 'days'}`
}
