import type { Kysely } from 'kysely'
import { PLATFORM_CODES, type PlatformCode } from '../../domain/platforms.js'
import { AppError } from '../../domain/errors.js'
import type { Database } from '../../storage/database.js'
import type { Store } from '../../storage/db.js'
import { findExistingBrandIds, listAccounts as listAccountRows, listBrandsWithAccountCounts } from '../../storage/repositories/brands.repository.js'

/** What the store holds, for operators (`brands list`, `accounts list`): the ids to grant and to import against. */

export interface BrandListing {
  brand_id: number
  brand_name: string
  /** Number of accounts of the brand. */
  accounts: number
}

export interface AccountListing {
  brand_id: number
  platform: PlatformCode
  account_id: number
  account_name: string
  network_id: string | null
}

/** Accounts by brand_id, then canonical platform order, then account_id. */
export async function listAccounts (db: Kysely<Database>, brandId?: number): Promise<AccountListing[]> {
  if (brandId !== undefined && (await findExistingBrandIds(db, [brandId])).length === 0) throw new AppError('NOT_FOUND', `No brand with id ${brandId}`)
  const rank = (platform: PlatformCode): number => PLATFORM_CODES.indexOf(platform)
  return (await listAccountRows(db, brandId)).sort((a, b) => a.brand_id - b.brand_id || rank(a.platform) - rank(b.platform) || a.account_id - b.account_id)
}

export function createCatalogService (deps: { store: Store }) {
  const { db } = deps.store
  return {
    brands: async (): Promise<BrandListing[]> => await listBrandsWithAccountCounts(db),
    accounts: async (brandId?: number): Promise<AccountListing[]> => await listAccounts(db, brandId),
  }
}
export type CatalogService = ReturnType<typeof createCatalogService>
