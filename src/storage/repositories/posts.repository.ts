import type { Kysely, Transaction } from 'kysely'
import type { Database } from '../database.js'

type Db = Kysely<Database> | Transaction<Database>

/** The current revision of the post clock: the snapshot a new /posts page walk reads. */
export async function readPostClock (db: Db): Promise<number> {
  const row = await db.selectFrom('post_clock').select('tick').where('singleton', '=', 1).executeTakeFirstOrThrow()
  return Number(row.tick)
}
