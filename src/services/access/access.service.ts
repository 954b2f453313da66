import type { Kysely } from 'kysely'
import { AppError } from '../../domain/errors.js'
import type { PlatformCode } from '../../domain/platforms.js'
import type { Principal } from '../../domain/principal.js'
import type { Scope, ScopeRequest } from '../../domain/scope.js'
import type { Database } from '../../storage/database.js'
import type { Store } from '../../storage/db.js'
import { findAccountsOnPlatform } from '../../storage/repositories/account-lookup.repository.js'
import { listGrantedBrandIds } from '../../storage/repositories/users.repository.js'
import { createAccessCache, type CacheStats, type Clock } from '../access-cache.js'

/**
 * Turns the brand_id / account_id / platform parameters into the data a request may read
 * (docs/api-reference.md "GET /analytics/", its scope rules), deciding 400 → 403 → 404 in that order.
 * Shared by /analytics/ and /posts; parameters are validated (422) before this runs. Access is
 * the user's current grants, never the token's, read at most every ACCESS_CACHE_TTL_MS, so a
 * revocation applies within that bound (docs/api-reference.md "Authentication"); a grant applies
 * at once to a request naming the brand, since a refusal is always decided on fresh grants.
 */

export const ACCOUNT_NEEDS_ONE_PLATFORM_DETAIL = 'account_id requires exactly one platform to be specified'

export interface AccessService {
  /** @throws AppError ACCOUNT_NEEDS_ONE_PLATFORM (400), FORBIDDEN (403), NOT_FOUND (404) */
  resolveScope: (principal: Principal, request: ScopeRequest) => Promise<Scope>
}

export function createAccessService (deps: { store: Store, clock?: Clock, stats?: CacheStats }): AccessService {
  // The primary, never a replica: a revocation must apply within the contract's bound.
  const { db } = deps.store
  const grantsOf = createAccessCache(async (userId) => await listGrantedBrandIds(db, userId), deps.clock, deps.stats)
  return {
    resolveScope: async (principal, request) => {
      try {
        return await resolveScope(db, await grantsOf(principal.userId), request)
      } catch (error) {
        // A refusal is never answered from the cache: a brand granted a moment ago (its
        // access.granted already in the change feed) is read fresh before a 403 or 404.
        if (!(error instanceof AppError) || (error.code !== 'FORBIDDEN' && error.code !== 'NOT_FOUND')) throw error
        return await resolveScope(db, await grantsOf(principal.userId, { fresh: true }), request)
      }
    },
  }
}

/**
 * @param accessibleBrandIds the brands the user may read right now (current grants).
 * @throws AppError ACCOUNT_NEEDS_ONE_PLATFORM (400), FORBIDDEN (403), NOT_FOUND (404)
 */
export async function resolveScope (db: Kysely<Database>, accessibleBrandIds: readonly number[], request: ScopeRequest): Promise<Scope> {
  const { brandIds, accountIds, platforms } = request
  if (accountIds !== undefined && platforms?.length !== 1) {
    throw new AppError('ACCOUNT_NEEDS_ONE_PLATFORM', ACCOUNT_NEEDS_ONE_PLATFORM_DETAIL)
  }

  const accessible = new Set(accessibleBrandIds)
  // A brand that does not exist is as forbidden as one not granted: no probing for brand ids.
  const forbidden = (brandIds ?? []).filter((id) => !accessible.has(id))
  if (forbidden.length > 0) {
    throw new AppError('FORBIDDEN', `You do not have access to brand_id ${forbidden.join(', ')}`)
  }
  const singleBrandId = brandIds?.length === 1 ? brandIds[0] : undefined

  if (accountIds === undefined) {
    const inScope = brandIds ?? [...accessible].sort((a, b) => a - b)
    return { kind: 'brands', brandIds: inScope, platforms, singleBrandId }
  }

  const platform = platforms?.[0] as PlatformCode
  const allowedBrands = brandIds === undefined ? accessible : new Set(brandIds)
  const accounts = (await findAccountsOnPlatform(db, platform, accountIds)).filter((account) => allowedBrands.has(Number(account.brand_id)))
  if (accounts.length !== accountIds.length) {
    const found = new Set(accounts.map((account) => Number(account.account_id)))
    const missing = accountIds.filter((id) => !found.has(id))
    throw new AppError('NOT_FOUND', `account_id ${missing.join(', ')} not found on platform ${platform} in an accessible brand`)
  }
  const scopeBrands = brandIds ?? [...new Set(accounts.map((account) => Number(account.brand_id)))].sort((a, b) => a - b)
  return { kind: 'accounts', brandIds: scopeBrands, platform, accounts, singleBrandId }
}
