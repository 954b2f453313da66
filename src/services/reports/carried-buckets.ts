import type { DateRange } from '../../domain/data-status.js'
import { accountWindow, combineAccounts, type AccountDays, type AccountWindow, type GroupFigures } from '../../domain/gaps/index.js'
import { METRIC_CATALOG, REPORTED_METRICS, metricDefinition, type MetricDefinition } from '../../domain/metric-catalog.js'
import type { Period } from '../../domain/period.js'
import type { Scope } from '../../domain/scope.js'
import type { Store } from '../../storage/db.js'
import { buildAccountsQuery, buildDayRowsQuery, type AccountRow, type AccountDaysQueryInput } from '../../storage/queries/account-days.query.js'
import { readRows } from '../../storage/queries/status-sql.js'
import { accountsOf } from '../analytics/carry.js'

/**
 * POST /reports with `gaps: "carry"` (docs/reports.md "Missing data"): what a report's rows are
 * made of when the gap rules apply. The store gives each account of the scope its account-days in
 * the period (and each stock's last value before it); the rules of src/domain/gaps make each
 * account's figures over each time bucket (accountWindow) and a group's from its accounts'
 * (combineAccounts) — the same calls as /analytics/?gaps=carry, so the two cannot disagree.
 */

const STOCK_NAMES = METRIC_CATALOG.filter((metric) => metric.kind === 'stock' && metric.sameAs === undefined).map((metric) => metric.name)

/** The catalogue definitions the rules compute for the asked metrics (an alias is its original). */
export function ruledMetricsOf (metrics: readonly string[]): MetricDefinition[] {
  const names = new Set(metrics.map((name) => metricDefinition(name)?.sameAs ?? name))
  return METRIC_CATALOG.filter((metric) => metric.sameAs === undefined && names.has(metric.name))
}

/** The reported metrics the rules read for `ruled`: flows and stocks themselves, a rate's parts (every stock: the accounts' carry). */
function inputsOf (ruled: readonly MetricDefinition[]): string[] {
  const inputs = new Set<string>(STOCK_NAMES)
  for (const metric of ruled) {
    const ratio = metric.ratioOf
    if (ratio === undefined) inputs.add(metric.name)
    else for (const name of [ratio.numerator, ratio.denominator, ...Object.values(ratio.denominatorByPlatform ?? {})]) inputs.add(name)
  }
  return REPORTED_METRICS.filter((name) => inputs.has(name))
}

/** Each account of the scope whose coverage meets the period, keyed `platform:account_id`, and the day rows read. */
export interface PeriodAccountDays {
  accounts: Map<string, AccountDays>
  rowsRead: number
}

export async function readPeriodAccountDays (store: Store, scope: Scope, period: Period, ruled: readonly MetricDefinition[], heavy: boolean): Promise<PeriodAccountDays> {
  const query: AccountDaysQueryInput = { dialect: store.dialect, scope, grouping: { by: 'account', byPlatform: false }, from: period.since, to: period.until }
  const accountRows = await readRows<AccountRow>(store, buildAccountsQuery(store.db, query, STOCK_NAMES), heavy)
  const dayRows = await readRows<Record<string, unknown>>(store, buildDayRowsQuery(store.db, query, inputsOf(ruled)), heavy)
  const accounts = new Map<string, AccountDays>()
  for (const { account } of accountsOf(accountRows, dayRows)) accounts.set(`${account.platform}:${account.accountId}`, account)
  return { accounts, rowsRead: dayRows.length }
}

/** The windows of one group (accounts of one scope key over one bucket) and the account-days they reported. */
export class GroupWindows {
  readonly windows: AccountWindow[] = []
  daysReported = 0

  add (account: AccountDays, window: DateRange, ruled: readonly MetricDefinition[]): void {
    const figures = accountWindow(account, window, ruled)
    if (figures.span === undefined) return
    this.windows.push(figures)
    this.daysReported += figures.reportedDays
  }

  figures (ruled: readonly MetricDefinition[]): GroupFigures {
    return combineAccounts(this.windows, ruled)
  }
}
