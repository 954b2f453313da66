import { formatUtcSeconds } from '../../domain/dates.js'
import {
  coveredSpan, mergeRanges, missingAround, monthWindows, spanDays,
  type AccountPosition, type AccountStatus, type DataStatusPage, type DateRange,
} from '../../domain/data-status.js'
import type { Period } from '../../domain/period.js'
import { accountKey, platformRank, type PlatformCode } from '../../domain/platforms.js'
import type { Scope } from '../../domain/scope.js'
import type { Store } from '../../storage/db.js'
import {
  buildAccountMonthsQuery, buildAccountPageQuery, buildGapsQuery,
  type AccountMonthRow, type AccountWindow, type CoverageRow, type GapRow,
} from '../../storage/queries/data-status.query.js'
import { readRows } from '../../storage/queries/status-sql.js'

/**
 * GET /data-status below HTTP (docs/api-reference.md "Data status"): one page of the scope's
 * accounts with their coverage, and for each the days of the period it reported and missed. The
 * store says how many rows each month of the period has and finds the gaps inside the months that
 * are short (storage/queries/data-status.query.ts); here each gap row becomes at most three
 * ranges, so the work outside the store follows the gaps and the months, never the days.
 */

export interface DataStatusRequest {
  period: Period
  limit: number
  /** Start after this account (the previous page's last). */
  after?: AccountPosition | undefined
}

export interface DataStatusService {
  page: (scope: Scope, request: DataStatusRequest) => Promise<DataStatusPage>
}

/**
 * The gap read runs where heavy statements run (and takes the heavy lane) beyond this many
 * account-days to read per brand-day of the store's heavy threshold: by default 36 600, a full
 * page of 100 accounts with a gap in every month of a year. Below it the read costs the main
 * thread less than the trip to a worker.
 */
const ACCOUNT_DAYS_PER_BRAND_DAY = 10

interface AccountPlan {
  row: CoverageRow
  span: DateRange | undefined
  /** Ranges known missing: months of the span without a row, windows read and found short. */
  missing: DateRange[]
}

const keyOf = (account: { platform: PlatformCode, account_id: number | string }): string => accountKey(account.platform, Number(account.account_id))

/**
 * The month windows of each account's span that need their days read: those with fewer rows
 * (account_monthly.rows_count) than covered days. Months with as many are complete; months
 * without a row at all are missing whole, recorded on the plan without reading anything.
 */
function shortMonths (plans: ReadonlyMap<string, AccountPlan>, rowsByMonth: ReadonlyMap<string, number>): AccountWindow[] {
  const short: AccountWindow[] = []
  for (const [key, plan] of plans) {
    const { row, span } = plan
    if (span === undefined || row.first_date === null || row.last_date === null) continue
    for (const month of monthWindows(span, { since: row.first_date, until: row.last_date })) {
      const rows = rowsByMonth.get(`${key}|${month.month}`) ?? 0
      if (rows === 0) plan.missing.push(month.window)
      else if (rows < month.coveredDays) short.push({ platform: row.platform, account_id: Number(row.account_id), window: month.window })
    }
  }
  return short
}

/** The missing ranges of windows read: around their gap rows, or the whole window when it returned none. */
function missingInWindows (windows: readonly AccountWindow[], gaps: readonly GapRow[]): Map<string, DateRange[]> {
  const byWindow = new Map<string, GapRow[]>()
  for (const gap of gaps) {
    const key = `${keyOf(gap)}|${gap.lo}`
    const found = byWindow.get(key)
    if (found === undefined) byWindow.set(key, [gap])
    else found.push(gap)
  }
  const missing = new Map<string, DateRange[]>()
  for (const window of windows) {
    const rows = byWindow.get(`${keyOf(window)}|${window.window.since}`)
    const ranges = rows === undefined ? [window.window] : rows.flatMap((row) => missingAround(row, window.window))
    missing.set(keyOf(window), [...missing.get(keyOf(window)) ?? [], ...ranges])
  }
  return missing
}

export function createDataStatusService (deps: { store: Store }): DataStatusService {
  async function readRowsByMonth (store: Store, spans: readonly AccountWindow[]): Promise<Map<string, number>> {
    if (spans.length === 0) return new Map()
    const months = await readRows<AccountMonthRow>(store, buildAccountMonthsQuery(store.db, store.dialect, spans), false)
    return new Map(months.map((month) => [`${keyOf(month)}|${month.month}`, Number(month.rows_count)]))
  }

  /** The gap rows of the windows; a large read runs where heavy statements run. */
  async function readGaps (store: Store, windows: readonly AccountWindow[]): Promise<GapRow[]> {
    if (windows.length === 0) return []
    const days = windows.reduce((sum, { window }) => sum + spanDays(window), 0)
    const heavy = days > store.heavy.brandDays * ACCOUNT_DAYS_PER_BRAND_DAY
    const read = async () => await readRows<GapRow>(store, buildGapsQuery(store.db, store.dialect, windows), heavy)
    return await (heavy ? store.heavy.admit(read) : read())
  }

  return {
    // Read where partner reads go: a current read replica, or the primary (src/storage/replicas/).
    page: async (scope, request) => await deps.store.reads.run(async (store) => {
      const base = { period: request.period, brandIds: scope.brandIds, singleBrandId: scope.singleBrandId }
      // A user with no brands has no accounts (and `in ()` is not valid SQL).
      if (scope.brandIds.length === 0) return { ...base, accounts: [] }
      const rows = await readRows<CoverageRow>(store, buildAccountPageQuery(store.db, scope, request.after, request.limit + 1), false)
      const page = rows.slice(0, request.limit)

      const plans = new Map(page.map((row) => [keyOf(row), { row, span: coveredSpan(request.period, row.first_date, row.last_date), missing: [] } as AccountPlan]))
      const spans = [...plans.values()].flatMap(({ row, span }) => span === undefined ? [] : [{ platform: row.platform, account_id: Number(row.account_id), window: span }])
      const short = shortMonths(plans, await readRowsByMonth(store, spans))
      for (const [key, ranges] of missingInWindows(short, await readGaps(store, short))) plans.get(key)?.missing.push(...ranges)

      const last = page[page.length - 1]
      return {
        ...base,
        accounts: [...plans.values()].map(statusOf),
        next: rows.length > request.limit && last !== undefined
          ? { brandId: Number(last.brand_id), platformRank: platformRank(last.platform), accountId: Number(last.account_id) }
          : undefined,
      }
    }),
  }
}

function statusOf (plan: AccountPlan): AccountStatus {
  const { row, span } = plan
  const expected = spanDays(span)
  const missing = mergeRanges(plan.missing)
  return {
    brand_id: Number(row.brand_id),
    platform: row.platform,
    account_id: Number(row.account_id),
    account_name: row.account_name,
    first_date: row.first_date,
    last_date: row.last_date,
    synced_at: row.synced_at === null ? null : formatUtcSeconds(row.synced_at),
    days_expected: expected,
    days_reported: expected - missing.reduce((days, range) => days + spanDays(range), 0),
    missing,
  }
}
