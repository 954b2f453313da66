import type { Kysely } from 'kysely'
import { formatUtcSeconds } from '../../domain/dates.js'
import { AppError } from '../../domain/errors.js'
import type { Database, UserRow } from '../../storage/database.js'
import type { Store } from '../../storage/db.js'
import { findExistingBrandIds } from '../../storage/repositories/brands.repository.js'
import { digestSecret, generateClientKey, generateSecretKey, generateUserId } from '../auth/credentials.js'
import {
  deleteGrants, findActiveCredentialOfUser, findUserById, insertCredential, insertGrants, insertUser,
  listGrantedBrandIds, listUsers, revokeCredentialsOfUser, setUserDisabledAt,
} from '../../storage/repositories/users.repository.js'

/**
 * The operator's side of partners: create users, issue and rotate their key pair, grant and
 * revoke brands, disable and enable. Used by the CLI; the login path reads the same tables.
 */

export interface IssuedCredentials {
  user_id: string
  api_client_key: string
  /** Shown once, here; only its digest is stored. */
  api_secret_key: string
}

export interface UserSummary {
  user_id: string
  name: string
  disabled: boolean
  created_at: string
  api_client_key: string | null
  brand_ids: number[]
}

/** Stored times are UTC to the second, the API's one timestamp format. */
function now (): string {
  return formatUtcSeconds()
}

async function requireUser (db: Kysely<Database>, userId: string): Promise<UserRow> {
  const user = await findUserById(db, userId)
  if (user === undefined) throw new AppError('NOT_FOUND', `No user with id ${userId}`)
  return user
}

/** Every brand must exist before it can be granted: a typo must not grant nothing silently. */
async function requireBrands (db: Kysely<Database>, brandIds: number[]): Promise<void> {
  const existing = new Set(await findExistingBrandIds(db, brandIds))
  const missing = brandIds.filter((id) => !existing.has(id))
  if (missing.length > 0) throw new AppError('NOT_FOUND', `No brand with id ${missing.join(', ')}`)
}

async function issueCredential (db: Kysely<Database>, userId: string, createdAt: string): Promise<IssuedCredentials> {
  const clientKey = generateClientKey()
  const secret = generateSecretKey()
  await insertCredential(db, { client_key: clientKey, user_id: userId, secret_digest: digestSecret(secret), created_at: createdAt, revoked_at: null })
  return { user_id: userId, api_client_key: clientKey, api_secret_key: secret }
}

export async function createUser (db: Kysely<Database>, input: { name: string, brandIds: number[] }): Promise<IssuedCredentials & { name: string, brand_ids: number[] }> {
  const name = input.name.trim()
  if (name === '') throw new AppError('VALIDATION_ERROR', 'The user name must not be empty')
  return await db.transaction().execute(async (trx) => {
    await requireBrands(trx, input.brandIds)
    const createdAt = now()
    const userId = generateUserId()
    await insertUser(trx, { user_id: userId, name, created_at: createdAt, disabled_at: null })
    await insertGrants(trx, userId, input.brandIds, createdAt)
    const issued = await issueCredential(trx, userId, createdAt)
    return { ...issued, name, brand_ids: [...input.brandIds].sort((a, b) => a - b) }
  })
}

export async function summarizeUsers (db: Kysely<Database>): Promise<UserSummary[]> {
  const users = await listUsers(db)
  return await Promise.all(users.map(async (user) => ({
    user_id: user.user_id,
    name: user.name,
    disabled: user.disabled_at !== null,
    created_at: user.created_at,
    api_client_key: (await findActiveCredentialOfUser(db, user.user_id))?.client_key ?? null,
    brand_ids: await listGrantedBrandIds(db, user.user_id),
  })))
}

export async function setUserDisabled (db: Kysely<Database>, userId: string, disabled: boolean): Promise<{ user_id: string, disabled: boolean }> {
  const user = await requireUser(db, userId)
  // Disabling twice keeps the first time; enabling clears it.
  if (disabled && user.disabled_at === null) await setUserDisabledAt(db, userId, now())
  if (!disabled) await setUserDisabledAt(db, userId, null)
  return { user_id: userId, disabled }
}

export async function grantBrands (db: Kysely<Database>, userId: string, brandIds: number[]): Promise<{ user_id: string, brand_ids: number[] }> {
  return await db.transaction().execute(async (trx) => {
    await requireUser(trx, userId)
    await requireBrands(trx, brandIds)
    await insertGrants(trx, userId, brandIds, now())
    return { user_id: userId, brand_ids: await listGrantedBrandIds(trx, userId) }
  })
}

export async function revokeBrands (db: Kysely<Database>, userId: string, brandIds: number[]): Promise<{ user_id: string, brand_ids: number[] }> {
  return await db.transaction().execute(async (trx) => {
    await requireUser(trx, userId)
    await deleteGrants(trx, userId, brandIds)
    return { user_id: userId, brand_ids: await listGrantedBrandIds(trx, userId) }
  })
}

/** Revokes the live key pair and issues a new one; the old pair fails at login from now on. */
export async function rotateCredentials (db: Kysely<Database>, userId: string): Promise<IssuedCredentials> {
  return await db.transaction().execute(async (trx) => {
    await requireUser(trx, userId)
    const at = now()
    await revokeCredentialsOfUser(trx, userId, at)
    return await issueCredential(trx, userId, at)
  })
}

/** The operator's operations, bound to a store (src/services/index.ts). */
export function createUsersService (deps: { store: Store }) {
  const { db } = deps.store
  return {
    create: async (input: { name: string, brandIds: number[] }) => await createUser(db, input),
    list: async () => await summarizeUsers(db),
    setDisabled: async (userId: string, disabled: boolean) => await setUserDisabled(db, userId, disabled),
    grant: async (userId: string, brandIds: number[]) => await grantBrands(db, userId, brandIds),
    revoke: async (userId: string, brandIds: number[]) => await revokeBrands(db, userId, brandIds),
    rotate: async (userId: string) => await rotateCredentials(db, userId),
    activeClientKeyOf: async (userId: string) => (await findActiveCredentialOfUser(db, userId))?.client_key,
  }
}
export type UsersService = ReturnType<typeof createUsersService>
