import type { Kysely, Transaction } from 'kysely'
import type { PlatformCode } from '../../domain/platforms.js'
import type { AccountRow, Database } from '../database.js'

type Db = Kysely<Database> | Transaction<Database>

/** The accounts with these ids on one platform, ascending by id; unknown ids are simply absent. */
export async function findAccountsOnPlatform (db: Db, platform: PlatformCode, accountIds: number[]): Promise<AccountRow[]> {
  if (accountIds.length === 0) return []
  return await db.selectFrom('accounts')
    .selectAll()
    .where('platform', '=', platform)
    .where('account_id', 'in', accountIds)
    .orderBy('account_id')
    .execute()
}

/** Brand names by id, for the brands that exist among these. */
export async function findBrandNames (db: Db, brandIds: number[]): Promise<Map<number, string>> {
  if (brandIds.length === 0) return new Map()
  const rows = await db.selectFrom('brands').select(['brand_id', 'brand_name']).where('brand_id', 'in', brandIds).execute()
  return new Map(rows.map((row) => [Number(row.brand_id), row.brand_name]))
}
