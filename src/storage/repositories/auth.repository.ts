import type { Kysely, Transaction } from 'kysely'
import type { Database } from '../database.js'

type Db = Kysely<Database> | Transaction<Database>

export interface TokenPrincipalRow {
  user_id: string
  name: string
  disabled_at: string | null
  /**
   * When the token's credential stopped working (revoked, or the end of a rotation's grace
   * period); null while it is live, including during a grace period.
   */
  credential_revoked_at: string | null
  /** False when no credential with that client key belongs to this user. */
  credential_found: boolean
}

/**
 * The user a token names and the state of the credential it was issued for, in one primary-key
 * query: the authentication hook runs it on every protected request.
 */
export async function findTokenPrincipal (db: Db, userId: string, clientKey: string, nowMs: number = Date.now()): Promise<TokenPrincipalRow | undefined> {
  const row = await db.selectFrom('users')
    .leftJoin('credentials', (join) => join
      .onRef('credentials.user_id', '=', 'users.user_id')
      .on('credentials.client_key', '=', clientKey))
    .select(['users.user_id', 'users.name', 'users.disabled_at', 'credentials.client_key', 'credentials.revoked_at'])
    .where('users.user_id', '=', userId)
    .executeTakeFirst()
  if (row === undefined) return undefined
  return {
    user_id: row.user_id,
    name: row.name,
    disabled_at: row.disabled_at,
    credential_found: row.client_key !== null,
    credential_revoked_at: row.revoked_at !== null && Date.parse(row.revoked_at) <= nowMs ? row.revoked_at : null,
  }
}
