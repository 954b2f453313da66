import type { Scope } from '../access/scope.js'
import type { CursorCodec } from '../http/cursor.js'
import type { Store } from '../storage/db.js'
import { findBrandNames } from '../storage/repositories/account-lookup.repository.js'
import { runAggQuery } from './agg.js'
import { runDailyQuery } from './daily.js'
import { toEntry, type EntryInput } from './entries.js'
import { aggEnvelope, dailyEnvelope, monthlyEnvelope, type Envelope, type EnvelopeInput } from './envelope.js'
import type { Grouping } from './grouped-query.js'
import type { GroupRow } from './metrics.js'
import { runMonthlyQuery } from './monthly.js'
import { encodeDailyCursor, type AnalyticsRequest } from './params.js'

/**
 * GET /analytics/ below HTTP: given a parsed request and its resolved scope, run the one report
 * asked for in the store and shape the envelope. Sums happen in SQL; JS only maps and rounds.
 */

/** Which keys a request groups by (SPEC.md rules 6–9). */
export function groupingOf (request: AnalyticsRequest, scope: Scope): Omit<Grouping, 'bucket'> {
  if (request.splitByPlatform) return { by: 'none', byPlatform: true }
  return { by: scope.kind === 'accounts' ? 'account' : 'brand', byPlatform: request.platforms !== undefined }
}

export async function fetchAnalytics (store: Store, request: AnalyticsRequest, scope: Scope, cursors: CursorCodec): Promise<Envelope> {
  const grouping = groupingOf(request, scope)
  const envelopeInput: EnvelopeInput = { period: request.period, platforms: request.platforms, scope }
  // A user with no brands has nothing to read; `in ()` is not valid SQL anyway.
  const empty = scope.brandIds.length === 0
  const input = { dialect: store.dialect, scope, period: request.period, grouping }

  if (request.type === 'daily') {
    const page = empty ? { rows: [], next: undefined } : await runDailyQuery(store.db, { ...input, after: request.after })
    const data = await toEntries(store, page.rows, request, scope, grouping)
    const nextCursor = page.next === undefined ? undefined : encodeDailyCursor(cursors, request, page.next)
    return dailyEnvelope(data, envelopeInput, nextCursor)
  }
  if (request.type === 'monthly') {
    const rows = empty ? [] : await runMonthlyQuery(store.db, input)
    return monthlyEnvelope(await toEntries(store, rows, request, scope, grouping), envelopeInput)
  }
  const rows = empty ? [] : await runAggQuery(store.db, input)
  return aggEnvelope(await toEntries(store, rows, request, scope, grouping), envelopeInput)
}

async function toEntries (store: Store, rows: GroupRow[], request: AnalyticsRequest, scope: Scope, grouping: EntryInput['grouping']) {
  const needsBrandNames = request.type === 'agg' && grouping.by === 'brand'
  const brandNames = needsBrandNames ? await findBrandNames(store.db, rows.map((row) => Number(row.group_id))) : new Map<number, string>()
  const entryInput: EntryInput = { report: request.type, grouping, scope, period: request.period, brandNames }
  return rows.map((row) => toEntry(row, entryInput))
}
