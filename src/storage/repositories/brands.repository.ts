import type { Kysely, Transaction } from 'kysely'
import type { Database } from '../database.js'

type Db = Kysely<Database> | Transaction<Database>

/** Which of these brand ids exist, ascending. */
export async function findExistingBrandIds (db: Db, brandIds: number[]): Promise<number[]> {
  if (brandIds.length === 0) return []
  const rows = await db.selectFrom('brands').select('brand_id').where('brand_id', 'in', brandIds).orderBy('brand_id').execute()
  return rows.map((row) => row.brand_id)
}

export async function countBrands (db: Db): Promise<number> {
  const row = await db.selectFrom('brands').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()
  return Number(row.n)
}

export async function listAllBrandIds (db: Db): Promise<number[]> {
  const rows = await db.selectFrom('brands').select('brand_id').orderBy('brand_id').execute()
  return rows.map((row) => row.brand_id)
}
