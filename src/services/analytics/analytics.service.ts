import type { AnalyticsReport, AnalyticsRequest, Entry, EntryKey, EntryStatus, GroupRow, Grouping } from '../../domain/analytics.js'
import type { Scope } from '../../domain/scope.js'
import type { Store } from '../../storage/db.js'
import { dataVersionReader } from '../../storage/queries/data-version.js'
import { createReportReader, type RenderedRow, type ReportReader } from '../../storage/queries/report-reader.js'
import { findBrandNames } from '../../storage/repositories/account-lookup.repository.js'
import { computeAggregates } from './aggregates.js'
import { entryJson, toEntry, type EntryInput } from './entries.js'
import { carriedEntry, entryGaps, mergeByKey, nothingReported, readCarriedFigures, readCarriedOnlyKeys, type CarriedOnlyInput } from './carry.js'
import { readDataThrough, readEntryStatuses } from './entry-status.js'
import { createReportCache, type ReportCache } from './report-cache.js'

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

export function createAnalyticsService (deps: { store: Store, cache?: ReportCache }): AnalyticsService {
  // One reader per store a report is read from: the primary, and each read replica (store.reads).
  const readers = new Map<Store, ReportReader>()
  const readerOf = (store: Store): ReportReader => {
    let reader = readers.get(store)
    if (reader === undefined) {
      reader = createReportReader(store)
      readers.set(store, reader)
    }
    return reader
  }

  async function entriesOf (store: Store, rows: GroupRow[], request: AnalyticsRequest, scope: Scope, grouping: Omit<Grouping, 'bucket'>): Promise<Entry[]> {
    const needsBrandNames = request.type === 'agg' && grouping.by === 'brand'
    // The brand statement reads the names with the sums; the account queries leave them to a second read.
    const named = rows.length > 0 && rows.every((row) => row.brand_name !== undefined)
    const brandNames = !needsBrandNames
      ? new Map<number, string>()
      : named ? new Map(rows.map((row) => [Number(row.group_id), row.brand_name as string])) : await findBrandNames(store.db, rows.map((row) => Number(row.group_id)))
    const input: EntryInput = { report: request.type, grouping, scope, period: request.period, brandNames }
    return rows.map((row) => toEntry(row, input))
  }

  /** A monthly report's entries as JSON: the read model's rendered whole months as they are, the others shaped. */
  async function monthlyEntriesJson (store: Store, rows: ReadonlyArray<GroupRow | RenderedRow>, request: AnalyticsRequest, scope: Scope, grouping: Omit<Grouping, 'bucket'>): Promise<string[]> {
    const summed = rows.filter((row): row is GroupRow => !('entry_json' in row))
    if (summed.length === rows.length) return (await entriesOf(store, summed, request, scope, grouping)).map(entryJson)
    const shaped = (await entriesOf(store, summed, request, scope, grouping)).map(entryJson)
    let next = 0
    return rows.map((row) => 'entry_json' in row ? row.entry_json : shaped[next++] as string)
  }

  /** include=status: the entries' completeness, read after the report (undefined without it). */
  async function statusesOf (store: Store, request: AnalyticsRequest, scope: Scope, grouping: Omit<Grouping, 'bucket'>, keys: readonly EntryKey[], heavy: boolean): Promise<EntryStatus[] | undefined> {
    if (request.withStatus !== true) return undefined
    return await readEntryStatuses(store, { report: request.type, scope, grouping, period: request.period, keys, heavy })
  }

  /**
   * gaps=carry: the entries' stocks and rates by the gap rules, and with include=status each
   * status's `gaps` member; gaps=zero leaves both as they are.
   */
  async function carried (store: Store, request: AnalyticsRequest, scope: Scope, grouping: Omit<Grouping, 'bucket'>, keys: readonly EntryKey[], heavy: boolean, entries: Entry[], statuses: EntryStatus[] | undefined): Promise<EntryStatus[] | undefined> {
    if (request.gaps !== 'carry') return statuses
    const figures = await readCarriedFigures(store, { report: request.type, scope, grouping, period: request.period, keys, withStatus: statuses !== undefined, heavy })
    entries.forEach((entry, index) => { const one = figures[index]; if (one !== undefined) carriedEntry(entry, one) })
    return statuses?.map((status, index) => {
      const one = figures[index]
      return one === undefined ? status : { ...status, gaps: entryGaps(one, Object.keys(status.metrics_reported)) }
    })
  }

  /**
   * gaps=carry: the entries rows make, with the carried-only entries among them in the report's
   * order (carry.ts), each shaped from a row of nothing reported; their keys in the same order.
   */
  async function withCarriedOnly (store: Store, request: AnalyticsRequest, scope: Scope, grouping: Omit<Grouping, 'bucket'>, page: Pick<CarriedOnlyInput, 'keys' | 'after' | 'next' | 'heavy'>, entries: Entry[]): Promise<{ keys: EntryKey[], entries: Entry[] }> {
    const extra = await readCarriedOnlyKeys(store, { report: request.type, scope, grouping, period: request.period, ...page })
    if (extra.length === 0) return { keys: [...page.keys], entries }
    const shaped = await entriesOf(store, extra.map(nothingReported), request, scope, grouping)
    const merged = mergeByKey(page.keys.map((key, index) => ({ key, item: entries[index] as Entry })), extra.map((key, index) => ({ key, item: shaped[index] as Entry })))
    return { keys: merged.map((one) => ({ bucket: one.key.bucket, group_id: one.key.group_id, platform_rank: one.key.platform_rank })), entries: merged.map((one) => one.item) }
  }

  async function report (store: Store, scope: Scope, request: AnalyticsRequest): Promise<AnalyticsReport> {
    const reader = readerOf(store)
    const grouping = groupingOf(request, scope)
    const through = request.withStatus === true ? await readDataThrough(store, scope, request.period) : undefined
    const base = { period: request.period, platforms: request.platforms, brandIds: scope.brandIds, singleBrandId: scope.singleBrandId, through }
    // A user with no brands has nothing to read (and `in ()` is not valid SQL).
    const empty = scope.brandIds.length === 0

    if (request.type === 'daily') {
      const page = empty ? { rows: [], next: undefined } : await reader.dailyPage(scope, grouping, request.period, request.after)
      const entriesJson = page.rendered ?? (await entriesOf(store, page.rows, request, scope, grouping)).map(entryJson)
      let keys: readonly EntryKey[] = page.renderedKeys ?? page.rows
      if (request.gaps === 'carry' && !empty) {
        const all = await withCarriedOnly(store, request, scope, grouping, { keys, after: request.after, next: page.next, heavy: false }, entriesJson.map((json) => JSON.parse(json) as Entry))
        keys = all.keys
        // A page is its 20 entries with rows and the carried-only ones among them: its status is a light read, whatever the period.
        const statuses = await carried(store, request, scope, grouping, keys, false, all.entries, await statusesOf(store, request, scope, grouping, keys, false))
        return { ...base, type: 'daily', entriesJson: all.entries.map(entryJson), next: page.next, statuses }
      }
      // A page is at most 20 entries: its status is a light read, whatever the period.
      const statuses = await statusesOf(store, request, scope, grouping, keys, false)
      return { ...base, type: 'daily', entriesJson, next: page.next, statuses }
    }
    // A heavy report is read and shaped inside the heavy lane, so at most a few are shaped at once.
    const heavy = !empty && reader.isHeavy(scope, request.period, request.withStatus === true || request.gaps === 'carry')
    const inLane = heavy ? store.heavy.admit : async <T>(work: () => Promise<T>) => await work()
    if (request.type === 'monthly') {
      return await inLane(async () => {
        const rows = empty ? [] : await reader.monthly(scope, grouping, request.period)
        const entriesJson = await monthlyEntriesJson(store, rows, request, scope, grouping)
        if (request.gaps === 'carry' && !empty) {
          const all = await withCarriedOnly(store, request, scope, grouping, { keys: rows, heavy }, entriesJson.map((json) => JSON.parse(json) as Entry))
          const statuses = await carried(store, request, scope, grouping, all.keys, heavy, all.entries, await statusesOf(store, request, scope, grouping, all.keys, heavy))
          return { ...base, type: 'monthly' as const, entriesJson: all.entries.map(entryJson), statuses }
        }
        return { ...base, type: 'monthly' as const, entriesJson, statuses: await statusesOf(store, request, scope, grouping, rows, heavy) }
      })
    }
    return await inLane(async () => {
      const rows = empty ? [] : await reader.agg(scope, grouping, request.period)
      let entries = await entriesOf(store, rows, request, scope, grouping)
      let keys: readonly EntryKey[] = rows
      if (request.gaps === 'carry' && !empty) ({ keys, entries } = await withCarriedOnly(store, request, scope, grouping, { keys: rows, heavy }, entries))
      const statuses = await carried(store, request, scope, grouping, keys, heavy, entries, await statusesOf(store, request, scope, grouping, keys, heavy))
      return { ...base, type: 'agg' as const, entries, aggregates: computeAggregates(entries), statuses }
    })
  }

  // Answers kept for the next identical question while the store's data has not moved (report-cache.ts).
  const cache = deps.cache ?? createReportCache()
  const versions = new Map<Store, (() => string) | undefined>()

  async function cachedReport (store: Store, scope: Scope, request: AnalyticsRequest): Promise<AnalyticsReport> {
    if (!versions.has(store)) versions.set(store, dataVersionReader(store))
    const versionOf = versions.get(store)
    if (versionOf === undefined) return await report(store, scope, request)
    const key = cache.keyOf(scope, request)
    const kept = cache.get(key)
    if (kept === undefined && !cache.askedBefore(key)) return await report(store, scope, request)
    // Read before the report: a write committed meanwhile moves the version, so the next request misses.
    const version = versionOf()
    if (kept !== undefined && kept.version === version) return kept.report
    const fresh = await report(store, scope, request)
    cache.set(key, { version, report: fresh })
    return fresh
  }

  return {
    // Read where partner reads go: a current read replica, or the primary (src/storage/replicas/).
    report: async (scope, request) => await deps.store.reads.run(async (store) => await cachedReport(store, scope, request)),
  }
}
