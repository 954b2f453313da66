import type { Kysely } from 'kysely'
import type { Database } from '../storage/database.js'
import { listGrantedBrandIds } from '../storage/repositories/users.repository.js'

/**
 * The brands a user may read, ascending. Always read from the current grants, never from the
 * token, so a grant or revocation applies to tokens already issued at their next request
 * (DECISIONS.md §3 asks for within 5 s). Grants cascade when a brand is deleted, so every id
 * returned names an existing brand.
 */
export async function listAccessibleBrandIds (db: Kysely<Database>, userId: string): Promise<number[]> {
  return await listGrantedBrandIds(db, userId)
}
