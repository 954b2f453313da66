import { issue } from '../errors.js'
import type { PlatformCode } from '../domain/platforms.js'
import type { CursorCodec } from '../http/cursor.js'
import { QueryParams, type Period } from '../http/params.js'
import type { DailyPosition } from './daily.js'
import type { Report } from './metrics.js'

/**
 * The parameters of GET /analytics/ (SPEC.md table, DECISIONS.md §6/§10), parsed in one pass
 * so a 422 lists every offending parameter. Only syntax is judged here; access (400/403/404)
 * is decided afterwards by src/access/scope.ts.
 */

export const REPORT_TYPES = ['daily', 'agg', 'monthly'] as const satisfies readonly Report[]

export interface AnalyticsRequest {
  type: Report
  period: Period
  brandIds: number[] | undefined
  accountIds: number[] | undefined
  platforms: PlatformCode[] | undefined
  splitByPlatform: boolean
  /** type=daily only: where the previous page ended. */
  after: DailyPosition | undefined
}

export interface ParseOptions {
  /** Today's UTC date (the default period ends on it). */
  today: string
  cursors: CursorCodec
}

/**
 * What a daily cursor is bound to: the normalised query, so `05`/`5` or `FB`/`fb` are the same
 * query while another since, brand or platform is not.
 */
export function cursorBinding (request: Omit<AnalyticsRequest, 'after'>): unknown {
  return {
    type: request.type,
    since: request.period.since,
    until: request.period.until,
    brand_id: request.brandIds ?? null,
    account_id: request.accountIds ?? null,
    platform: request.platforms ?? null,
    split_by_platform: request.splitByPlatform,
  }
}

const DATE = /^\d{4}-\d{2}-\d{2}$/

function positionFrom (payload: unknown): DailyPosition | undefined {
  if (!Array.isArray(payload) || payload.length !== 3) return undefined
  const [date, groupId, platformRank] = payload as unknown[]
  if (typeof date !== 'string' || !DATE.test(date)) return undefined
  if (!Number.isSafeInteger(groupId) || !Number.isSafeInteger(platformRank)) return undefined
  return { date, groupId: groupId as number, platformRank: platformRank as number }
}

export function encodeDailyCursor (cursors: CursorCodec, request: Omit<AnalyticsRequest, 'after'>, position: DailyPosition): string {
  return cursors.encode([position.date, position.groupId, position.platformRank], cursorBinding(request))
}

/** @throws AppError VALIDATION_ERROR listing every offending parameter */
export function parseAnalyticsQuery (query: Readonly<Record<string, string | undefined>>, options: ParseOptions): AnalyticsRequest {
  const params = new QueryParams(query)
  const type = params.enum('type', REPORT_TYPES) ?? 'daily'
  const period = params.period(options.today)
  const brandIds = params.idList('brand_id')
  const accountIds = params.idList('account_id')
  const platforms = params.platformList('platform')
  const splitByPlatform = params.boolean('split_by_platform') ?? false
  const cursor = params.raw('cursor')
  params.finish()

  const request = { type, period: period as Period, brandIds, accountIds, platforms, splitByPlatform }
  // A cursor is ignored unless type=daily; it can only be judged once the rest is valid.
  let after: DailyPosition | undefined
  if (type === 'daily' && cursor !== undefined) {
    after = positionFrom(options.cursors.decode(cursor, cursorBinding(request)))
    if (after === undefined) {
      params.add(issue(['query', 'cursor'], 'Invalid cursor: use the next_cursor of a response to this same query', 'cursor_invalid'))
      params.finish()
    }
  }
  return { ...request, after }
}
