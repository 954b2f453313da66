import type { Kysely } from 'kysely'
import { PLATFORM_CODES, type PlatformCode } from '../../src/domain/platforms.js'
import type { Database, NewAccountRow, NewBrandRow } from '../../src/storage/database.js'

/** Test data written straight into the tables with Kysely (no import path involved). */

export interface AccountFixture {
  platform: PlatformCode
  account_id: number
  account_name?: string
  network_id?: string | null
  storage_avatar?: string | null
  permalink?: string | null
}

export interface BrandFixture {
  brand_id: number
  brand_name?: string
  accounts?: AccountFixture[]
}

const UPDATED_AT = '2026-11-01T00:00:00.000Z'
/** Rows per INSERT: keeps PostgreSQL well under its 65535 bind-parameter limit. */
const CHUNK = 500

/** Inserts brands and their accounts; names default to `Brand <id>` and `Account <platform> <id>`. */
export async function insertBrandsWithAccounts (db: Kysely<Database>, brands: BrandFixture[]): Promise<void> {
  const brandRows: NewBrandRow[] = brands.map((brand) => ({
    brand_id: brand.brand_id,
    brand_name: brand.brand_name ?? `Brand ${brand.brand_id}`,
    updated_at: UPDATED_AT,
  }))
  const accountRows: NewAccountRow[] = brands.flatMap((brand) => (brand.accounts ?? []).map((account) => ({
    platform: account.platform,
    account_id: account.account_id,
    brand_id: brand.brand_id,
    account_name: account.account_name ?? `Account ${account.platform} ${account.account_id}`,
    network_id: account.network_id === undefined ? `net-${account.platform}-${account.account_id}` : account.network_id,
    storage_avatar: account.storage_avatar ?? null,
    permalink: account.permalink ?? null,
    updated_at: UPDATED_AT,
  })))
  for (let i = 0; i < brandRows.length; i += CHUNK) await db.insertInto('brands').values(brandRows.slice(i, i + CHUNK)).execute()
  for (let i = 0; i < accountRows.length; i += CHUNK) await db.insertInto('accounts').values(accountRows.slice(i, i + CHUNK)).execute()
}

/**
 * `count` brands with ids first, first+1, …; brand N gets `accountsPerBrand` accounts spread over
 * the platforms in canonical order, with account ids N * 1000 + k (unique per platform).
 */
export function brandRange (first: number, count: number, accountsPerBrand = 0): BrandFixture[] {
  return Array.from({ length: count }, (_, i) => {
    const brandId = first + i
    return {
      brand_id: brandId,
      accounts: Array.from({ length: accountsPerBrand }, (_, k) => ({
        platform: PLATFORM_CODES[k % PLATFORM_CODES.length] as PlatformCode,
        account_id: brandId * 1000 + k,
      })),
    }
  })
}
