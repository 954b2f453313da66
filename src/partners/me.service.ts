import type { Kysely } from 'kysely'
import { PLATFORM_CODES, type PlatformCode } from '../domain/platforms.js'
import type { Database } from '../storage/database.js'

/**
 * GET /me (SPEC.md, DECISIONS.md §5): the user's name and one page of the brands they can access,
 * sorted by brand_id, each with its nine account lists sorted by account_id. Two bounded queries
 * per page: the page of granted brands (limit + 1 rows, to know whether another page exists) and
 * the accounts of those brands. Access comes from the current grants, as everywhere.
 */

export interface AccountReference {
  account_id: number
  account_name: string
  network_id: string | null
}

export type AccountListName = `${PlatformCode}_accounts`

export type MeBrand = { brand_id: number, brand_name: string } & Record<AccountListName, AccountReference[]>

export interface BrandPage {
  brands: MeBrand[]
  /** The last brand_id of this page when another page follows; undefined on the last page. */
  nextAfterBrandId: number | undefined
}

export async function listBrandPage (db: Kysely<Database>, userId: string, limit: number, afterBrandId: number | undefined): Promise<BrandPage> {
  let query = db.selectFrom('user_brands')
    .innerJoin('brands', 'brands.brand_id', 'user_brands.brand_id')
    .select(['brands.brand_id', 'brands.brand_name'])
    .where('user_brands.user_id', '=', userId)
  if (afterBrandId !== undefined) query = query.where('brands.brand_id', '>', afterBrandId)
  const rows = await query.orderBy('brands.brand_id').limit(limit + 1).execute()

  const page = rows.slice(0, limit).map((row) => ({ brand_id: Number(row.brand_id), brand_name: row.brand_name }))
  const brands = new Map<number, MeBrand>(page.map((brand) => [brand.brand_id, emptyBrand(brand.brand_id, brand.brand_name)]))
  if (brands.size > 0) {
    const accounts = await db.selectFrom('accounts')
      .select(['brand_id', 'platform', 'account_id', 'account_name', 'network_id'])
      .where('brand_id', 'in', [...brands.keys()])
      .orderBy('brand_id').orderBy('platform').orderBy('account_id')
      .execute()
    for (const account of accounts) {
      brands.get(Number(account.brand_id))?.[`${account.platform}_accounts`].push({
        account_id: Number(account.account_id),
        account_name: account.account_name,
        network_id: account.network_id,
      })
    }
  }
  const last = page[page.length - 1]
  return { brands: [...brands.values()], nextAfterBrandId: rows.length > limit && last !== undefined ? last.brand_id : undefined }
}

function emptyBrand (brandId: number, brandName: string): MeBrand {
  const brand = { brand_id: brandId, brand_name: brandName } as MeBrand
  for (const code of PLATFORM_CODES) brand[`${code}_accounts`] = []
  return brand
}
