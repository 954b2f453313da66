import type { AccountPosition } from '../../domain/data-status.js'
import type { Period } from '../../domain/period.js'
import type { PlatformCode } from '../../domain/platforms.js'
import type { CursorCodec } from './codec.js'

/**
 * The /data-status cursor: the last account of the previous page (brand, platform rank, id),
 * bound to the normalised query — the resolved period, brands, accounts and platforms — and not
 * to `limit`, as on /analytics/ (docs/api-reference.md "Paging and cursors").
 */

export interface DataStatusBinding {
  period: Period
  brandIds: number[] | undefined
  accountIds: number[] | undefined
  platforms: PlatformCode[] | undefined
}

function binding (request: DataStatusBinding): unknown {
  return {
    since: request.period.since,
    until: request.period.until,
    brand_id: request.brandIds ?? null,
    account_id: request.accountIds ?? null,
    platform: request.platforms ?? null,
  }
}

export function encodeDataStatusCursor (codec: CursorCodec, request: DataStatusBinding, position: AccountPosition): string {
  return codec.encode([position.brandId, position.platformRank, position.accountId], binding(request))
}

/** The position a cursor carries, or undefined when it is garbage, edited or from another query. */
export function decodeDataStatusCursor (codec: CursorCodec, request: DataStatusBinding, cursor: string): AccountPosition | undefined {
  const payload = codec.decode(cursor, binding(request))
  if (!Array.isArray(payload) || payload.length !== 3 || !payload.every((value) => Number.isSafeInteger(value))) return undefined
  const [brandId, platformRank, accountId] = payload as number[]
  return { brandId: brandId as number, platformRank: platformRank as number, accountId: accountId as number }
}
