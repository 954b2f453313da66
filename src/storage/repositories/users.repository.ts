import { sql, type ExpressionBuilder, type Kysely, type Transaction } from 'kysely'
import { formatUtcSeconds } from '../../domain/dates.js'
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

/**
 * A credential is live at `at` while it has no `revoked_at` or its `revoked_at` is still ahead
 * (a rotation's grace period sets it in the future). Timestamps are whole-second UTC text, which
 * compares in time order in SQLite and is cast to timestamptz in PostgreSQL.
 */
function liveAt (at: string) {
  return (eb: ExpressionBuilder<Database, 'credentials'>) => eb.or([eb('revoked_at', 'is', null), eb('revoked_at', '>', at)])
}

/**
 * Newest first: by creation time, and within one second a pair with no end before one that a
 * rotation ended (the rotation's new pair is the newer of the two).
 */
const withoutEndFirst = sql`case when revoked_at is null then 0 else 1 end`

/** The credential holding this client key, if it is live at `at` (default now). */
export async function findActiveCredential (db: Db, clientKey: string, at: string = formatUtcSeconds()): Promise<CredentialRow | undefined> {
  return await db.selectFrom('credentials').selectAll()
    .where('client_key', '=', clientKey)
    .where(liveAt(at))
    .executeTakeFirst()
}

/** The user's newest credential live at `at` (default now). */
export async function findActiveCredentialOfUser (db: Db, userId: string, at: string = formatUtcSeconds()): Promise<CredentialRow | undefined> {
  return (await listLiveCredentialsOfUser(db, userId, at))[0]
}

/** The user's credentials live at `at`, newest first. */
export async function listLiveCredentialsOfUser (db: Db, userId: string, at: string): Promise<CredentialRow[]> {
  return await db.selectFrom('credentials').selectAll()
    .where('user_id', '=', userId)
    .where(liveAt(at))
    .orderBy('created_at', 'desc').orderBy(withoutEndFirst).orderBy('client_key', 'desc')
    .execute()
}

/** Every credential of the user, live or not, newest first. */
export async function listCredentialsOfUser (db: Db, userId: string): Promise<CredentialRow[]> {
  return await db.selectFrom('credentials').selectAll()
    .where('user_id', '=', userId)
    .orderBy('created_at', 'desc').orderBy(withoutEndFirst).orderBy('client_key', 'desc')
    .execute()
}

/** The credential holding this client key, live or not. */
export async function findCredential (db: Db, clientKey: string): Promise<CredentialRow | undefined> {
  return await db.selectFrom('credentials').selectAll().where('client_key', '=', clientKey).executeTakeFirst()
}

/** Sets when a credential stops working (now, or the end of a grace period). */
export async function setCredentialRevokedAt (db: Db, clientKey: string, revokedAt: string): Promise<void> {
  await db.updateTable('credentials').set({ revoked_at: revokedAt }).where('client_key', '=', clientKey).execute()
}

/** Deletes the user; its credentials and grants go with it (ON DELETE CASCADE). */
export async function deleteUser (db: Db, userId: string): Promise<void> {
  await db.deleteFrom('users').where('user_id', '=', userId).execute()
}

/**
 * Grants the brands not granted yet; returns those it granted, ascending. A grant that exists
 * already (also one a concurrent transaction has just written) is left alone and not returned.
 */
export async function insertGrants (db: Db, userId: string, brandIds: number[], createdAt: string): Promise<number[]> {
  if (brandIds.length === 0) return []
  const rows = await db.insertInto('user_brands')
    .values(brandIds.map((brandId) => ({ user_id: userId, brand_id: brandId, created_at: createdAt })))
    .onConflict((oc) => oc.columns(['user_id', 'brand_id']).doNothing())
    .returning('brand_id')
    .execute()
  return rows.map((row) => Number(row.brand_id)).sort((a, b) => a - b)
}

/** Revokes the brands; returns those that were granted (and are not any more), ascending. */
export async function deleteGrants (db: Db, userId: string, brandIds: number[]): Promise<number[]> {
  if (brandIds.length === 0) return []
  const rows = await db.deleteFrom('user_brands').where('user_id', '=', userId).where('brand_id', 'in', brandIds).returning('brand_id').execute()
  return rows.map((row) => Number(row.brand_id)).sort((a, b) => a - b)
}

export async function listGrantedBrandIds (db: Db, userId: string): Promise<number[]> {
  const rows = await db.selectFrom('user_brands').select('brand_id').where('user_id', '=', userId).orderBy('brand_id').execute()
  return rows.map((row) => row.brand_id)
}
