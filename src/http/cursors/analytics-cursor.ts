import type { AnalyticsRequest, DailyPosition } from '../../domain/analytics.js'
import type { CursorCodec } from './codec.js'

/**
 * The /analytics/ daily cursor: the position of a page's last entry, bound to the normalised
 * query (docs/api-reference.md "GET /analytics/"), so `05`/`5` or `FB`/`fb` are the same query while another since,
 * brand or platform is not.
 */

function binding (request: AnalyticsRequest): unknown {
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

export function encodeDailyCursor (codec: CursorCodec, request: AnalyticsRequest, position: DailyPosition): string {
  return codec.encode([position.date, position.groupId, position.platformRank], binding(request))
}

/** The position a cursor carries, or undefined when it is garbage, edited or from another query. */
export function decodeDailyCursor (codec: CursorCodec, request: AnalyticsRequest, cursor: string): DailyPosition | undefined {
  const payload = codec.decode(cursor, binding(request))
  if (!Array.isArray(payload) || payload.length !== 3) return undefined
  const [date, groupId, platformRank] = payload as unknown[]
  if (typeof date !== 'string' || !DATE.test(date)) return undefined
  if (!Number.isSafeInteger(groupId) || !Number.isSafeInteger(platformRank)) return undefined
  return { date, groupId: groupId as number, platformRank: platformRank as number }
}
