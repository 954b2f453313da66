import { useEffect, useMemo, useRef, useState } from 'preact/hooks'
import type { RateLimitWait } from '../api/session.js'
import type { Signal } from '../api/signal.js'
import { COMPARING_VIEWS, formatFilters, parseFilters, PERIOD_VIEWS, periodOf, type Filters, type View } from '../model/filters.js'
import { clampToSynced, daysInPeriod, lastSyncedDay, previousPeriod, todayUtc } from '../model/period.js'
import { analyticsScope } from '../model/queries.js'
import { ChangesBanner } from './changes-banner.js'
import { FiltersForm } from './filters-form.js'
import { useDataStatus } from './loads.js'
import { Loading, ProblemNotice } from './notices.js'
import { ProblemRegistry, ProblemRegistryContext } from './problem-registry.js'
import { RateLimitBanner } from './rate-limit-banner.js'
import { useSession } from './session-context.js'
import type { ViewProps } from './view-props.js'
import { AccountsView } from './views/accounts.js'
import { ExportsView } from './views/exports.js'
import { OverviewView } from './views/overview.js'
import { PlatformsView } from './views/platforms.js'
import { PostsView } from './views/posts.js'
import { TableView } from './views/table.js'
import { WebhooksView } from './views/webhooks.js'

const VIEW_LABELS: Record<View, string> = {
  overview: 'Overview',
  platforms: 'Platforms',
  table: 'Table',
  posts: 'Top posts',
  accounts: 'Top accounts',
  exports: 'Exports',
  webhooks: 'Webhooks',
}

/**
 * The signed-in page: header, filters, the view links and the current view. The filters are the
 * page's query string (parseFilters/formatFilters): applying them pushes a history entry, so Back
 * and Forward walk through views, and the address can be bookmarked or shared.
 */
export function Dashboard ({ waits, onSignOut }: { waits: Signal<RateLimitWait | null>, onSignOut: () => void }) {
  const { session } = useSession()
  const [filters, setFilters] = useState(() => parseFilters(window.location.search))
  const [revision, setRevision] = useState(0)
  const heading = useRef<HTMLHeadingElement>(null)
  const problems = useMemo(() => new ProblemRegistry(), [])

  useEffect(() => {
    const onPopState = () => setFilters(parseFilters(window.location.search))
    window.addEventListener('popstate', onPopState)
    heading.current?.focus()
    return () => window.removeEventListener('popstate', onPopState)
  }, [])
  useEffect(() => { document.title = `${VIEW_LABELS[filters.view]} · Partner Analytics` }, [filters.view])

  const navigate = (next: Filters) => {
    const search = formatFilters(next)
    if (search !== window.location.search) window.history.pushState(null, '', window.location.pathname + search)
    setFilters(next)
  }
  const refresh = () => {
    session.cache.clear()
    setRevision((value) => value + 1)
  }

  const today = todayUtc()
  // The last day with data, across every account the partner can see: presets end on it, the
  // date inputs stop at it, and a later end is moved back to it (with a note).
  const synced = useDataStatus({ since: today, until: today }, revision)
  const lastDay = synced.status === 'done' ? lastSyncedDay(synced.value.map((account) => account.last_date), today) : null
  const period = clampToSynced(periodOf(filters, lastDay ?? today), lastDay)
  const brandNames = useMemo(() => new Map(session.profile.brands.map((brand) => [brand.brand_id, brand.brand_name])), [session])
  const onPeriod = PERIOD_VIEWS.includes(filters.view)
  const props: ViewProps = {
    filters,
    period: { since: period.since, until: period.until },
    previous: previousPeriod(period),
    scope: analyticsScope(filters, session.profile.brands),
    brandNames,
    navigate,
    revision,
  }

  const withoutFilters = filters.view === 'exports' || filters.view === 'webhooks'
  return (
    <ProblemRegistryContext.Provider value={problems}>
      <header class='topbar'>
        <h1 ref={heading} tabIndex={-1}>Partner Analytics</h1>
        <p class='who'>Signed in as <strong data-user-name>{session.profile.name}</strong></p>
        <div class='topbar-actions'>
          <button type='button' onClick={refresh}>Refresh</button>
          <button type='button' onClick={onSignOut}>Sign out</button>
        </div>
      </header>
      <RateLimitBanner waits={waits} />
      <ChangesBanner watch={filters} onRefresh={refresh} />
      {/* Exports has a form of its own, and webhooks have nothing to do with the analytics filters: not shown there. */}
      <div class={withoutFilters ? 'layout layout-single' : 'layout'}>
        {!withoutFilters && <FiltersForm filters={filters} brands={session.profile.brands} today={lastDay ?? today} lastDay={lastDay} onApply={navigate} />}
        <main id='main' class='content' tabIndex={-1}>
          <nav aria-label='Views' class='views-nav'>
            <ul>
              {(Object.keys(VIEW_LABELS) as View[]).map((view) => (
                <li key={view}>
                  <a
                    href={window.location.pathname + formatFilters({ ...filters, view })}
                    aria-current={filters.view === view ? 'page' : undefined}
                    onClick={(event) => { event.preventDefault(); navigate({ ...filters, view }) }}
                  >{VIEW_LABELS[view]}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
          {onPeriod && (
            <p class='period-line' data-period>
              <strong>{period.since} – {period.until}</strong> ({Number.isFinite(daysInPeriod(period)) ? daysInPeriod(period) : '?'} days)
              {COMPARING_VIEWS.includes(filters.view) && <>, compared with {props.previous.since} – {props.previous.until}</>}
            </p>
          )}
          {onPeriod && period.clampedFrom !== undefined && (
            <p class='note' role='note' data-clamped>
              Shown through {period.until}, the last day with data: you asked for days through {period.clampedFrom}, and the days after{' '}
              {period.until} are not synced yet (they are not days with nothing).
            </p>
          )}
          {onPeriod && props.scope.note !== undefined && <p class='note' role='note'>{props.scope.note}</p>}
          {filters.view !== 'webhooks' && synced.status === 'loading' && <Loading label='Finding the last day with data' />}
          {filters.view !== 'webhooks' && synced.status === 'error' && <ProblemNotice problem={synced.problem} />}
          {synced.status === 'done' && (
            <>
              {filters.view === 'overview' && <OverviewView {...props} />}
              {filters.view === 'platforms' && <PlatformsView {...props} />}
              {filters.view === 'table' && <TableView {...props} />}
              {filters.view === 'posts' && <PostsView {...props} />}
              {filters.view === 'accounts' && <AccountsView {...props} />}
              {filters.view === 'exports' && <ExportsView {...props} lastDay={lastDay} />}
            </>
          )}
          {filters.view === 'webhooks' && <WebhooksView />}
        </main>
      </div>
    </ProblemRegistryContext.Provider>
  )
}
