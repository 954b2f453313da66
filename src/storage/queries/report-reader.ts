import { DAILY_PAGE_SIZE, type DailyPosition, type EntryKey, type GroupRow, type Grouping } from '../../domain/analytics.js'
import { periodDays, type Period } from '../../domain/period.js'
import type { Scope } from '../../domain/scope.js'
import type { Store } from '../db.js'
import { createStatementRunner } from '../prepared.js'
import { buildAggQuery } from './analytics-agg.query.js'
import { pageOf, runDailyQuery, type DailyPage } from './analytics-daily.query.js'
import { heavyGroupRows, runGroupedQuery } from './analytics-grouped.query.js'
import { buildMonthlyQuery } from './analytics-monthly.query.js'
import { groupRowOf } from '../read-model/group-rows.js'
import { FEW_BRANDS, NO_DATES, aggStatement, dailyPageStatement, monthlyStatement, periodValues, runningEdgesApply, wholeMonthsStatement, type BrandCount, type Statement } from './brand-reports.query.js'

/**
 * Where each report is read from. Reports of brands over every platform (no `platform`, no
 * `split_by_platform`) — the common case, and what dashboards poll — read the brand read model with
 * statements prepared once (brand-reports.query.ts). The others group account rows: per account-day
 * for daily pages, account_monthly plus the edges' raw days for monthly and agg
 * (analytics-grouped.query.ts). Both give the same numbers; the oracle tests hold either to them.
 * A daily page of brands comes rendered: its rows' entry JSON from the read model, shaped from
 * their sums only for rows summed before entry_json existed.
 */
export interface ReportReader {
  /**
   * Whether a monthly or agg report is heavy: the caller runs it, shaping included, in
   * `store.heavy.admit`. `withStatus`: include=status also reads the raw account-days.
   */
  isHeavy: (scope: Scope, period: Period, withStatus?: boolean) => boolean
  dailyPage: (scope: Scope, grouping: Omit<Grouping, 'bucket'>, period: Period, after: DailyPosition | undefined) => Promise<DailyPage>
  /** Summed groups, or — for the whole months of brands over every platform — their rendered entries. */
  monthly: (scope: Scope, grouping: Omit<Grouping, 'bucket'>, period: Period) => Promise<Array<GroupRow | RenderedRow>>
  agg: (scope: Scope, grouping: Omit<Grouping, 'bucket'>, period: Period) => Promise<GroupRow[]>
}

/** Whether a report is the brand read model's: grouped by brand, every platform summed. */
function byBrandOverEveryPlatform (scope: Scope, grouping: Omit<Grouping, 'bucket'>): scope is Extract<Scope, { kind: 'brands' }> {
  return scope.kind === 'brands' && grouping.by === 'brand' && !grouping.byPlatform && scope.platforms === undefined
}

/**
 * Whether a monthly or agg report is heavy (src/storage/heavy-reads.ts): when it covers more
 * brand-days than the store's threshold. Its statement then runs where heavy statements run.
 * Daily pages never are: a page is 21 entries read through an index, whatever the period.
 */
function isHeavy (store: Store, scope: Scope, period: Period, withStatus = false): boolean {
  return scope.brandIds.length * periodDays(period) * (withStatus ? STATUS_COST : 1) > store.heavy.brandDays
}

/**
 * include=status reads every account-day of the period (it counts rows and non-null values,
 * which the month rollups do not keep), where the report itself reads a month rollup per account
 * and month: a brand-day with status costs about as much as this many without.
 */
const STATUS_COST = 4

/** An entry the read model holds rendered: its key and its JSON text. */
export type RenderedRow = EntryKey & { entry_json: string }

/** Rows of a rendered daily page: date, brand, entry JSON (null when not rendered). */
type RenderedDayRow = [string, number, string | null]

/** Rows of a report's rendered whole months: month, brand, entry JSON (null when not rendered). */
type RenderedMonthRow = [string, number, string | null]

/** Up to 21 rendered rows → the page; undefined when one of its rows has no rendered entry. */
function renderedPageOf (rows: RenderedDayRow[]): DailyPage | undefined {
  const page = rows.length > DAILY_PAGE_SIZE ? rows.slice(0, DAILY_PAGE_SIZE) : rows
  const rendered: string[] = []
  const renderedKeys: EntryKey[] = []
  for (const [date, brandId, json] of page) {
    if (json === null) return undefined
    rendered.push(json)
    renderedKeys.push({ bucket: date, group_id: Number(brandId), platform_rank: 0 })
  }
  const last = page[page.length - 1]
  const next = rows.length > DAILY_PAGE_SIZE && last !== undefined ? { date: last[0], groupId: Number(last[1]), platformRank: 0 } : undefined
  return { rows: [], rendered, renderedKeys, next }
}

export function createReportReader (store: Store): ReportReader {
  const runner = createStatementRunner(store)
  const statements = new Map<string, Statement>()
  const statement = (key: string, build: () => Statement): Statement => {
    let found = statements.get(key)
    if (found === undefined) {
      found = build()
      statements.set(key, found)
    }
    return found
  }
  const input = (scope: Scope, grouping: Omit<Grouping, 'bucket'>, period: Period) => ({ dialect: store.dialect, scope, period, grouping })
  const monthlyOfBrands = monthlyStatement(store.dialect)
  const wholeMonthsOfBrands = wholeMonthsStatement(store.dialect)
  const aggOfBrands = aggStatement(store.dialect)
  const aggOfOneBrand = aggStatement(store.dialect, 'one')

  /**
   * A monthly report of brands over every platform: its whole months rendered (brand_monthly.entry_json),
   * its partial months at either edge summed; undefined when it has no whole month, or one of them
   * is not rendered (summed before entry_json existed): the caller then sums every month.
   */
  async function renderedMonthly (brandIds: readonly number[], period: Period, heavy: boolean): Promise<Array<GroupRow | RenderedRow> | undefined> {
    const values = periodValues(brandIds, period)
    if (values.m1 === NO_DATES.from) return undefined
    const run = heavy ? runner.heavyRows : runner.rows
    const whole = await run(wholeMonthsOfBrands, values) as RenderedMonthRow[]
    const rendered: RenderedRow[] = []
    for (const [bucket, brandId, json] of whole) {
      if (json === null) return undefined
      rendered.push({ bucket, group_id: Number(brandId), platform_rank: 0, entry_json: json })
    }
    const hasEdges = values.h1 !== NO_DATES.from || values.t1 !== NO_DATES.from
    const edges = hasEdges ? (await run(monthlyOfBrands, { ...values, m1: NO_DATES.from, m2: NO_DATES.to })).map(groupRowOf) : []
    // Newest month first: the tail's month, the whole months, the head's month.
    const tailMonth = values.t1 === NO_DATES.from ? undefined : String(values.t1).slice(0, 7)
    return [...edges.filter((row) => row.bucket === tailMonth), ...rendered, ...edges.filter((row) => row.bucket !== tailMonth)]
  }

  /** A monthly or agg report: the brand statement, or the account query; a heavy one where heavy statements run. */
  async function wholePeriod (scope: Scope, grouping: Omit<Grouping, 'bucket'>, period: Period, accountQuery: typeof buildAggQuery, ofBrands: Statement): Promise<GroupRow[]> {
    const heavy = isHeavy(store, scope, period)
    if (!byBrandOverEveryPlatform(scope, grouping)) {
      const query = accountQuery(store.db, input(scope, grouping, period))
      return heavy ? await heavyGroupRows(store, query) : await runGroupedQuery(query)
    }
    const run = heavy ? runner.heavyRows : runner.rows
    return (await run(ofBrands, periodValues(scope.brandIds, period))).map(groupRowOf)
  }

  return {
    isHeavy: (scope, period, withStatus) => isHeavy(store, scope, period, withStatus),
    dailyPage: async (scope, grouping, period, after) => {
      if (!byBrandOverEveryPlatform(scope, grouping)) return await runDailyQuery(store.db, { ...input(scope, grouping, period), after })
      const count: BrandCount = scope.brandIds.length === 1 ? 'one' : scope.brandIds.length <= FEW_BRANDS ? 'few' : 'many'
      const continued = after !== undefined
      const values = {
        brand: scope.brandIds[0],
        brands: scope.brandIds,
        since: period.since,
        until: period.until,
        after_date: after?.date,
        after_brand: after?.groupId,
      }
      const rendered = statement(`daily-${count}-${continued}-rendered`, () => dailyPageStatement(store.dialect, count, continued, 'rendered'))
      const page = renderedPageOf(await runner.rows(rendered, values) as RenderedDayRow[])
      if (page !== undefined) return page
      const sums = statement(`daily-${count}-${continued}-sums`, () => dailyPageStatement(store.dialect, count, continued, 'sums'))
      return pageOf((await runner.rows(sums, values)).map(groupRowOf))
    },
    monthly: async (scope, grouping, period) => {
      if (byBrandOverEveryPlatform(scope, grouping)) {
        const rendered = await renderedMonthly(scope.brandIds, period, isHeavy(store, scope, period))
        if (rendered !== undefined) return rendered
      }
      return await wholePeriod(scope, grouping, period, buildMonthlyQuery, monthlyOfBrands)
    },
    agg: async (scope, grouping, period) => await wholePeriod(scope, grouping, period, buildAggQuery, scope.brandIds.length === 1 && runningEdgesApply(period) ? aggOfOneBrand : aggOfBrands),
  }
}
