import type { Kysely, Transaction } from 'kysely'
import type { CredentialRow, Database, UserRow } from '../database.js'

/** Users, their credentials and their brand grants. Plain functions; callers own transactions. */

type Db = Kysely<Database> | Transaction<Database>

export async function insertUser (db: Db, user: UserRow): Promise<void> {
  await db.insertInto('users').values(user).execute()
}

export async function findUserById (db: Db, userId: string): Promise<UserRow | undefined> {
  return await db.selectFrom('users').selectAll().where('user_id', '=', userId).executeTakeFirst()
}

export async function listUsers (db: Db): Promise<UserRow[]> {
  return await db.selectFrom('users').selectAll().orderBy('created_at').orderBy('user_id').execute()
}

export async function setUserDisabledAt (db: Db, userId: string, disabledAt: string | null): Promise<void> {
  await db.updateTable('users').set({ disabled_at: disabledAt }).where('user_id', '=', userId).execute()
}

export async function insertCredential (db: Db, credential: CredentialRow): Promise<void> {
  await db.insertInto('credentials').values(credential).execute()
}

/** The live (not revoked) credential holding this client key, if any. */
export async function findActiveCredential (db: Db, clientKey: string): Promise<CredentialRow | undefined> {
  return await db.selectFrom('credentials').selectAll()
    .where('client_key', '=', clientKey)
    .where('revoked_at', 'is', null)
    .executeTakeFirst()
}

export async function findActiveCredentialOfUser (db: Db, userId: string): Promise<CredentialRow | undefined> {
  return await db.selectFrom('credentials').selectAll()
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst()
}

export async function revokeCredentialsOfUser (db: Db, userId: string, revokedAt: string): Promise<void> {
  await db.updateTable('credentials').set({ revoked_at: revokedAt })
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .execute()
}

export async function insertGrants (db: Db, userId: string, brandIds: number[], createdAt: string): Promise<void> {
  if (brandIds.length === 0) return
  await db.insertInto('user_brands')
    .values(brandIds.map((brandId) => ({ user_id: userId, brand_id: brandId, created_at: createdAt })))
    .onConflict((oc) => oc.columns(['user_id', 'brand_id']).doNothing())
    .execute()
}

export async function deleteGrants (db: Db, userId: string, brandIds: number[]): Promise<void> {
  if (brandIds.length === 0) return
  await db.deleteFrom('user_brands').where('user_id', '=', userId).where('brand_id', 'in', brandIds).execute()
}

export async function listGrantedBrandIds (db: Db, userId: string): Promise<number[]> {
  const rows = await db.selectFrom('user_brands').select('brand_id').where('user_id', '=', userId).orderBy('brand_id').execute()
  return rows.map((row) => row.brand_id)
}
