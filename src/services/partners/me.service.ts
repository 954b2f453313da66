import type { BrandPage, BrandWithAccounts } from '../../domain/brands.js'
import { PLATFORM_CODES } from '../../domain/platforms.js'
import type { Store } from '../../storage/db.js'
import { listAccountsOfBrands, listGrantedBrandPage } from '../../storage/repositories/brands.repository.js'

/**
 * GET /me (docs/api-reference.md "GET /me"): one page of the brands a user can access, sorted by
 * brand_id, each with its nine account lists sorted by account_id. Two bounded queries per page:
 * the page of granted brands (limit + 1 rows, to know whether another page exists) and the
 * accounts of those brands. Access comes from the current grants, as everywhere.
 */
export interface PartnersService {
  brandPage: (userId: string, limit: number, afterBrandId: number | undefined) => Promise<BrandPage>
}

export function createPartnersService (deps: { store: Store }): PartnersService {
  return {
    // Read where partner reads go: a current read replica, or the primary (src/storage/replicas/).
    brandPage: async (userId, limit, afterBrandId) => await deps.store.reads.run(async ({ db }) => {
      const rows = await listGrantedBrandPage(db, userId, limit + 1, afterBrandId)
      const page = rows.slice(0, limit)
      const brands = new Map<number, BrandWithAccounts>(page.map((brand) => [brand.brand_id, emptyBrand(brand.brand_id, brand.brand_name)]))
      for (const account of await listAccountsOfBrands(db, [...brands.keys()])) {
        brands.get(account.brand_id)?.[`${account.platform}_accounts`].push({
          account_id: account.account_id,
          account_name: account.account_name,
          network_id: account.network_id,
        })
      }
      const last = page.at(-1)
      return { brands: [...brands.values()], nextAfterBrandId: rows.length > limit && last !== undefined ? last.brand_id : undefined }
    }),
  }
}

function emptyBrand (brandId: number, brandName: string): BrandWithAccounts {
  const brand = { brand_id: brandId, brand_name: brandName } as BrandWithAccounts
  for (const code of PLATFORM_CODES) brand[`${code}_accounts`] = []
  return brand
}
