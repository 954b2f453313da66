import type { Kysely, Transaction } from 'kysely'
import { accountKey } from '../../domain/platforms.js'
import type { Database } from '../database.js'

type Db = Kysely<Database> | Transaction<Database>

/**
 * What an import may refer to without declaring it: every brand id and account key in the store.
 * Bounded by the number of brands and accounts (not of daily rows or posts), read once per import.
 */

export async function listBrandIds (db: Db): Promise<number[]> {
  const rows = await db.selectFrom('brands').select('brand_id').execute()
  return rows.map((row) => Number(row.brand_id))
}

/** `platform:account_id` of every account. */
export async function listAccountKeys (db: Db): Promise<string[]> {
  const rows = await db.selectFrom('accounts').select(['platform', 'account_id']).execute()
  return rows.map((row) => accountKey(row.platform, Number(row.account_id)))
}
