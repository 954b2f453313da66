import type { AnalyticsReport, AnalyticsRequest, Entry, GroupRow, Grouping } from '../../domain/analytics.js'
import type { Scope } from '../../domain/scope.js'
import type { Store } from '../../storage/db.js'
import { createReportReader } from '../../storage/queries/report-reader.js'
import { findBrandNames } from '../../storage/repositories/account-lookup.repository.js'
import { computeAggregates } from './aggregates.js'
import { entryJson, toEntry, type EntryInput } from './entries.js'

/**
 * GET /analytics/ below HTTP: given a validated request and its resolved scope, run the one
 * report asked for in the store and shape its entries. Sums happen in SQL; here only mapping and
 * rounding. The caller turns the report into the wire envelope (and `next` into a cursor).
 */
export interface AnalyticsService {
  report: (scope: Scope, request: AnalyticsRequest) => Promise<AnalyticsReport>
}

/** Which keys a request groups by (docs/api-reference.md "GET /analytics/", grouping). */
export function groupingOf (request: AnalyticsRequest, scope: Scope): Omit<Grouping, 'bucket'> {
  if (request.splitByPlatform) return { by: 'none', byPlatform: true }
  return { by: scope.kind === 'accounts' ? 'account' : 'brand', byPlatform: request.platforms !== undefined }
}

export function createAnalyticsService (deps: { store: Store }): AnalyticsService {
  const { store } = deps
  const reader = createReportReader(store)

  async function entriesOf (rows: GroupRow[], request: AnalyticsRequest, scope: Scope, grouping: Omit<Grouping, 'bucket'>): Promise<Entry[]> {
    const needsBrandNames = request.type === 'agg' && grouping.by === 'brand'
    const brandNames = needsBrandNames ? await findBrandNames(store.db, rows.map((row) => Number(row.group_id))) : new Map<number, string>()
    const input: EntryInput = { report: request.type, grouping, scope, period: request.period, brandNames }
    return rows.map((row) => toEntry(row, input))
  }

  return {
    report: async (scope, request) => {
      const grouping = groupingOf(request, scope)
      const base = { period: request.period, platforms: request.platforms, brandIds: scope.brandIds, singleBrandId: scope.singleBrandId }
      // A user with no brands has nothing to read (and `in ()` is not valid SQL).
      const empty = scope.brandIds.length === 0

      if (request.type === 'daily') {
        const page = empty ? { rows: [], next: undefined } : await reader.dailyPage(scope, grouping, request.period, request.after)
        const entriesJson = page.rendered ?? (await entriesOf(page.rows, request, scope, grouping)).map(entryJson)
        return { ...base, type: 'daily', entriesJson, next: page.next }
      }
      // A heavy report is read and shaped inside the heavy lane, so at most a few are shaped at once.
      const inLane = !empty && reader.isHeavy(scope, request.period) ? store.heavy.admit : async <T>(work: () => Promise<T>) => await work()
      if (request.type === 'monthly') {
        return await inLane(async () => {
          const rows = empty ? [] : await reader.monthly(scope, grouping, request.period)
          const entriesJson = (await entriesOf(rows, request, scope, grouping)).map(entryJson)
          return { ...base, type: 'monthly' as const, entriesJson }
        })
      }
      return await inLane(async () => {
        const rows = empty ? [] : await reader.agg(scope, grouping, request.period)
        const entries = await entriesOf(rows, request, scope, grouping)
        return { ...base, type: 'agg' as const, entries, aggregates: computeAggregates(entries) }
      })
    },
  }
}
