import type { DailyPosition, GroupRow, Grouping } from '../../domain/analytics.js'
import type { Period } from '../../domain/period.js'
import type { Scope } from '../../domain/scope.js'
import type { Store } from '../db.js'
import { createStatementRunner } from '../prepared.js'
import { runAggQuery } from './analytics-agg.query.js'
import { pageOf, runDailyQuery, type DailyPage } from './analytics-daily.query.js'
import { runMonthlyQuery } from './analytics-monthly.query.js'
import { FEW_BRANDS, REPORT_COLUMNS, aggStatement, dailyPageStatement, monthlyStatement, periodValues, type BrandCount, type Statement } from './brand-reports.query.js'

/**
 * Where each report is read from. Reports of brands over every platform (no `platform`, no
 * `split_by_platform`) — the common case, and what dashboards poll — read the brand read model with
 * statements prepared once (brand-reports.query.ts). The others group account rows: per account-day
 * for daily pages, account_monthly plus the edges' raw days for monthly and agg
 * (analytics-grouped.query.ts). Both give the same numbers; the oracle tests hold either to them.
 */
export interface ReportReader {
  dailyPage: (scope: Scope, grouping: Omit<Grouping, 'bucket'>, period: Period, after: DailyPosition | undefined) => Promise<DailyPage>
  monthly: (scope: Scope, grouping: Omit<Grouping, 'bucket'>, period: Period) => Promise<GroupRow[]>
  agg: (scope: Scope, grouping: Omit<Grouping, 'bucket'>, period: Period) => Promise<GroupRow[]>
}

/** Whether a report is the brand read model's: grouped by brand, every platform summed. */
function byBrandOverEveryPlatform (scope: Scope, grouping: Omit<Grouping, 'bucket'>): scope is Extract<Scope, { kind: 'brands' }> {
  return scope.kind === 'brands' && grouping.by === 'brand' && !grouping.byPlatform && scope.platforms === undefined
}

/** One array row of a report statement as a group row. */
function groupRow (row: unknown[]): GroupRow {
  const out: Record<string, unknown> = {}
  for (let index = 0; index < REPORT_COLUMNS.length; index += 1) out[REPORT_COLUMNS[index] as string] = row[index]
  return out as GroupRow
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

  return {
    dailyPage: async (scope, grouping, period, after) => {
      if (!byBrandOverEveryPlatform(scope, grouping)) return await runDailyQuery(store.db, { ...input(scope, grouping, period), after })
      const count: BrandCount = scope.brandIds.length === 1 ? 'one' : scope.brandIds.length <= FEW_BRANDS ? 'few' : 'many'
      const page = statement(`daily-${count}-${after === undefined ? 'first' : 'next'}`, () => dailyPageStatement(store.dialect, count, after !== undefined))
      const rows = await runner.rows(page, {
        brand: scope.brandIds[0],
        brands: scope.brandIds,
        since: period.since,
        until: period.until,
        after_date: after?.date,
        after_brand: after?.groupId,
      })
      return pageOf(rows.map(groupRow))
    },
    monthly: async (scope, grouping, period) => {
      if (!byBrandOverEveryPlatform(scope, grouping)) return await runMonthlyQuery(store.db, input(scope, grouping, period))
      return (await runner.rows(statement('monthly', () => monthlyStatement(store.dialect)), periodValues(scope.brandIds, period))).map(groupRow)
    },
    agg: async (scope, grouping, period) => {
      if (!byBrandOverEveryPlatform(scope, grouping)) return await runAggQuery(store.db, input(scope, grouping, period))
      return (await runner.rows(statement('agg', () => aggStatement(store.dialect)), periodValues(scope.brandIds, period))).map(groupRow)
    },
  }
}
