import type { Kysely, Transaction } from 'kysely'
import { accountKey, type PlatformCode } from '../../domain/platforms.js'
import type { Database } from '../database.js'

type Db = Kysely<Database> | Transaction<Database>

/** Keeps `IN (…)` lists well below SQLite's and PostgreSQL's bound-parameter limits. */
const CHUNK = 500

function chunks<T> (items: T[]): T[][] {
  const out: T[][] = []
  for (let start = 0; start < items.length; start += CHUNK) out.push(items.slice(start, start + CHUNK))
  return out
}

/** Which of these accounts exist, as `accountKey` strings. */
export async function findExistingAccountKeys (db: Db, accounts: Array<{ platform: PlatformCode, account_id: number }>): Promise<Set<string>> {
  const idsByPlatform = new Map<PlatformCode, number[]>()
  for (const { platform, account_id: accountId } of accounts) {
    const ids = idsByPlatform.get(platform) ?? []
    ids.push(accountId)
    idsByPlatform.set(platform, ids)
  }
  const found = new Set<string>()
  for (const [platform, ids] of idsByPlatform) {
    for (const chunk of chunks(ids)) {
      const rows = await db.selectFrom('accounts').select('account_id')
        .where('platform', '=', platform).where('account_id', 'in', chunk).execute()
      for (const row of rows) found.add(accountKey(platform, Number(row.account_id)))
    }
  }
  return found
}

/** Which of these brand ids exist. */
export async function findExistingBrandIdSet (db: Db, brandIds: number[]): Promise<Set<number>> {
  const found = new Set<number>()
  for (const chunk of chunks(brandIds)) {
    const rows = await db.selectFrom('brands').select('brand_id').where('brand_id', 'in', chunk).execute()
    for (const row of rows) found.add(Number(row.brand_id))
  }
  return found
}
