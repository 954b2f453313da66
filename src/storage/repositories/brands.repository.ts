import type { Kysely, Transaction } from 'kysely'
import type { PlatformCode } from '../../domain/platforms.js'
import type { Database } from '../database.js'

type Db = Kysely<Database> | Transaction<Database>

/** Which of these brand ids exist, ascending. */
export async function findExistingBrandIds (db: Db, brandIds: number[]): Promise<number[]> {
  if (brandIds.length === 0) return []
  const rows = await db.selectFrom('brands').select('brand_id').where('brand_id', 'in', brandIds).orderBy('brand_id').execute()
  return rows.map((row) => Number(row.brand_id))
}

export async function countBrands (db: Db): Promise<number> {
  const row = await db.selectFrom('brands').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()
  return Number(row.n)
}

/** Up to `limit` brands granted to the user, by brand_id, after `afterBrandId` when given. */
export async function listGrantedBrandPage (db: Db, userId: string, limit: number, afterBrandId: number | undefined): Promise<Array<{ brand_id: number, brand_name: string }>> {
  let query = db.selectFrom('user_brands')
    .innerJoin('brands', 'brands.brand_id', 'user_brands.brand_id')
    .select(['brands.brand_id', 'brands.brand_name'])
    .where('user_brands.user_id', '=', userId)
  if (afterBrandId !== undefined) query = query.where('brands.brand_id', '>', afterBrandId)
  const rows = await query.orderBy('brands.brand_id').limit(limit).execute()
  return rows.map((row) => ({ brand_id: Number(row.brand_id), brand_name: row.brand_name }))
}

/** The accounts of these brands, by brand, platform and account_id. */
export async function listAccountsOfBrands (db: Db, brandIds: number[]): Promise<Array<{ brand_id: number, platform: PlatformCode, account_id: number, account_name: string, network_id: string | null }>> {
  if (brandIds.length === 0) return []
  const rows = await db.selectFrom('accounts')
    .select(['brand_id', 'platform', 'account_id', 'account_name', 'network_id'])
    .where('brand_id', 'in', brandIds)
    .orderBy('brand_id').orderBy('platform').orderBy('account_id')
    .execute()
  return rows.map((row) => ({ ...row, brand_id: Number(row.brand_id), account_id: Number(row.account_id) }))
}

/** Every brand with its number of accounts, by brand_id (the operator's `brands list`). */
export async function listBrandsWithAccountCounts (db: Db): Promise<Array<{ brand_id: number, brand_name: string, accounts: number }>> {
  const rows = await db.selectFrom('brands')
    .leftJoin('accounts', 'accounts.brand_id', 'brands.brand_id')
    .select((eb) => ['brands.brand_id', 'brands.brand_name', eb.fn.count<number>('accounts.account_id').as('accounts')])
    .groupBy(['brands.brand_id', 'brands.brand_name'])
    .orderBy('brands.brand_id')
    .execute()
  return rows.map((row) => ({ brand_id: Number(row.brand_id), brand_name: row.brand_name, accounts: Number(row.accounts) }))
}

/** Every account, or those of one brand, by brand_id and account_id. */
export async function listAccounts (db: Db, brandId?: number): Promise<Array<{ brand_id: number, platform: PlatformCode, account_id: number, account_name: string, network_id: string | null }>> {
  let query = db.selectFrom('accounts').select(['brand_id', 'platform', 'account_id', 'account_name', 'network_id'])
  if (brandId !== undefined) query = query.where('brand_id', '=', brandId)
  const rows = await query.orderBy('brand_id').orderBy('account_id').orderBy('platform').execute()
  return rows.map((row) => ({ ...row, brand_id: Number(row.brand_id), account_id: Number(row.account_id) }))
}
