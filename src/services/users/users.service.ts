import type { Kysely } from 'kysely'
import { formatUtcSeconds } from '../../domain/dates.js'
import { AppError } from '../../domain/errors.js'
import { recordEvents } from '../../storage/changes/change-log.repository.js'
import type { Database, UserRow } from '../../storage/database.js'
import type { Store } from '../../storage/db.js'
import { findExistingBrandIds } from '../../storage/repositories/brands.repository.js'
import { digestSecret, generateClientKey, generateSecretKey, generateUserId } from '../auth/credentials.js'
import {
  deleteGrants, deleteUser, findActiveCredentialOfUser, findCredential, findUserById, insertCredential, insertGrants,
  insertUser, listCredentialsOfUser, listGrantedBrandIds, listLiveCredentialsOfUser, listUsers, setCredentialRevokedAt,
  setUserDisabledAt,
} from '../../storage/repositories/users.repository.js'

/**
 * The operator's side of partners: create and delete users, issue, rotate and revoke their key
 * pairs, grant and revoke brands, disable and enable. Used by the CLI; the login path reads the
 * same tables.
 *
 * Key pairs (docs/authentication.md "Key pairs and rotation"): a user has at most
 * MAX_LIVE_KEY_PAIRS live pairs, so a new pair can be rolled out before the old one is retired.
 * A pair is live until its `revoked_at`, which a rotation with a grace period sets in the future.
 */

/** Live key pairs a user may hold at once: the one in use and its replacement. */
export const MAX_LIVE_KEY_PAIRS = 2

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
  /** The newest live client key (null when none is live). */
  api_client_key: string | null
  /** Every live client key, newest first (two while a new pair is rolled out). */
  api_client_keys: string[]
  brand_ids: number[]
}

/** One key pair as `credentials list` shows it (never the secret, which is not stored). */
export interface CredentialSummary {
  api_client_key: string
  created_at: string
  /** When the pair stopped, or will stop, working; null: no end set. */
  revoked_at: string | null
  /** Whether login and tokens work with it now (true during a grace period). */
  live: boolean
}

export interface RotatedCredentials extends IssuedCredentials {
  /** The pairs the rotation ended, with when each stops working (now, or the end of the grace period). */
  replaced: Array<{ api_client_key: string, revoked_at: string }>
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

/**
 * A new user's first brands emit no `access.granted` events: it has no place in the change feed
 * before it exists, and its first sync reads everything it can see (docs/api-reference.md
 * "Change feed"). Deleting a user emits nothing either: its tokens stop working.
 */
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
  const at = now()
  return await Promise.all(users.map(async (user) => {
    const live = (await listLiveCredentialsOfUser(db, user.user_id, at)).map((credential) => credential.client_key)
    return {
      user_id: user.user_id,
      name: user.name,
      disabled: user.disabled_at !== null,
      created_at: formatUtcSeconds(user.created_at),
      api_client_key: live[0] ?? null,
      api_client_keys: live,
      brand_ids: await listGrantedBrandIds(db, user.user_id),
    }
  }))
}

export async function setUserDisabled (db: Kysely<Database>, userId: string, disabled: boolean): Promise<{ user_id: string, disabled: boolean }> {
  const user = await requireUser(db, userId)
  // Disabling twice keeps the first time; enabling clears it.
  if (disabled && user.disabled_at === null) await setUserDisabledAt(db, userId, now())
  if (!disabled) await setUserDisabledAt(db, userId, null)
  return { user_id: userId, disabled }
}

/**
 * Grants brands, and tells the user through its change feed: one `access.granted` event per brand
 * it did not hold yet (docs/api-reference.md "Change feed"), in the same transaction, so the feed
 * and the grants never disagree. A brand already granted changes nothing and emits nothing.
 * @param at the wall clock (ServiceDeps.now): the grant's and the events' time.
 */
export async function grantBrands (db: Kysely<Database>, userId: string, brandIds: number[], at: () => number = Date.now): Promise<{ user_id: string, brand_ids: number[] }> {
  return await db.transaction().execute(async (trx) => {
    await requireUser(trx, userId)
    await requireBrands(trx, brandIds)
    const time = formatUtcSeconds(at())
    const granted = await insertGrants(trx, userId, brandIds, time)
    const brands = await listGrantedBrandIds(trx, userId)
    // Last: the change log's numbers are taken just before the commit (change-log.repository.ts).
    await recordEvents(trx, granted.map((brandId) => ({ type: 'access.granted', userId, data: { brand_id: brandId } })), time)
    return { user_id: userId, brand_ids: brands }
  })
}

/**
 * Revokes brands, with one `access.revoked` event per brand the user held, in the same
 * transaction. From that commit on the feed shows the user no event of those brands, old ones
 * included, but this one. Revoking a brand not granted emits nothing.
 */
export async function revokeBrands (db: Kysely<Database>, userId: string, brandIds: number[], at: () => number = Date.now): Promise<{ user_id: string, brand_ids: number[] }> {
  return await db.transaction().execute(async (trx) => {
    await requireUser(trx, userId)
    const revoked = await deleteGrants(trx, userId, brandIds)
    const brands = await listGrantedBrandIds(trx, userId)
    await recordEvents(trx, revoked.map((brandId) => ({ type: 'access.revoked', userId, data: { brand_id: brandId } })), formatUtcSeconds(at()))
    return { user_id: userId, brand_ids: brands }
  })
}

/**
 * When a grace period of `graceSeconds` from `nowMs` ends, to the second as stored: rounded up, so
 * the old pair works at least the whole period (12 s asked at 10:00:00.900 ends 10:00:13, not
 * 10:00:12, 11.1 s later).
 */
export function graceEndOf (nowMs: number, graceSeconds: number): string {
  return formatUtcSeconds(Math.ceil((nowMs + graceSeconds * 1000) / 1000) * 1000)
}

/**
 * Issues a new key pair and ends the live ones: at once, or, with a grace period, the newest
 * live pair keeps working until then (so clients can switch over) and any other stops now.
 * Refused with a grace period when the user already holds MAX_LIVE_KEY_PAIRS live pairs: which
 * one to end is the operator's choice (`credentials revoke`).
 */
export async function rotateCredentials (db: Kysely<Database>, userId: string, graceSeconds = 0): Promise<RotatedCredentials> {
  return await db.transaction().execute(async (trx) => {
    await requireUser(trx, userId)
    // One reading of the clock: the new pair's issue time and the grace's end are of the same instant.
    const nowMs = Date.now()
    const at = formatUtcSeconds(nowMs)
    const live = await listLiveCredentialsOfUser(trx, userId, at)
    if (graceSeconds > 0 && live.length >= MAX_LIVE_KEY_PAIRS) throw tooManyLivePairs(userId, live)
    const graceEnd = graceEndOf(nowMs, graceSeconds)
    const replaced = live.map((credential) => {
      // With a grace period there is one live pair: it works on until the grace ends, or until
      // its own end if an earlier rotation already set a sooner one.
      const ownEnd = credential.revoked_at === null ? undefined : formatUtcSeconds(credential.revoked_at)
      const end = graceSeconds === 0 ? at : ownEnd !== undefined && Date.parse(ownEnd) < Date.parse(graceEnd) ? ownEnd : graceEnd
      return { api_client_key: credential.client_key, revoked_at: end }
    })
    for (const { api_client_key: clientKey, revoked_at: revokedAt } of replaced) await setCredentialRevokedAt(trx, clientKey, revokedAt)
    return { ...await issueCredential(trx, userId, at), replaced }
  })
}

function tooManyLivePairs (userId: string, live: Array<{ client_key: string }>): AppError {
  return new AppError('CONFLICT', `User ${userId} already has ${live.length} live key pairs (${live.map((credential) => credential.client_key).join(', ')}); revoke one first: partner-analytics credentials revoke CLIENT_KEY`)
}

/** A further key pair beside the live one(s), at most MAX_LIVE_KEY_PAIRS live at once. */
export async function createCredential (db: Kysely<Database>, userId: string): Promise<IssuedCredentials> {
  return await db.transaction().execute(async (trx) => {
    await requireUser(trx, userId)
    const at = now()
    const live = await listLiveCredentialsOfUser(trx, userId, at)
    if (live.length >= MAX_LIVE_KEY_PAIRS) throw tooManyLivePairs(userId, live)
    return await issueCredential(trx, userId, at)
  })
}

export async function listCredentials (db: Kysely<Database>, userId: string): Promise<{ user_id: string, credentials: CredentialSummary[] }> {
  await requireUser(db, userId)
  const at = Date.parse(now())
  const rows = await listCredentialsOfUser(db, userId)
  return {
    user_id: userId,
    credentials: rows.map((row) => ({
      api_client_key: row.client_key,
      created_at: formatUtcSeconds(row.created_at),
      revoked_at: row.revoked_at === null ? null : formatUtcSeconds(row.revoked_at),
      live: row.revoked_at === null || Date.parse(row.revoked_at) > at,
    })),
  }
}

/**
 * Ends a key pair now, also one in its grace period; login with it fails at once and its tokens
 * within the access-cache bound. Revoking a pair already ended changes nothing.
 */
export async function revokeCredential (db: Kysely<Database>, clientKey: string): Promise<{ user_id: string, api_client_key: string, revoked_at: string }> {
  return await db.transaction().execute(async (trx) => {
    const credential = await findCredential(trx, clientKey)
    if (credential === undefined) throw new AppError('NOT_FOUND', `No key pair with client key ${clientKey}`)
    const at = now()
    let revokedAt = credential.revoked_at === null ? null : formatUtcSeconds(credential.revoked_at)
    if (revokedAt === null || Date.parse(revokedAt) > Date.parse(at)) {
      revokedAt = at
      await setCredentialRevokedAt(trx, clientKey, at)
    }
    return { user_id: credential.user_id, api_client_key: clientKey, revoked_at: revokedAt }
  })
}

/** Deletes a user with its key pairs and grants; its tokens stop within the access-cache bound. */
export async function removeUser (db: Kysely<Database>, userId: string): Promise<{ user_id: string, deleted: true }> {
  return await db.transaction().execute(async (trx) => {
    await requireUser(trx, userId)
    await deleteUser(trx, userId)
    return { user_id: userId, deleted: true as const }
  })
}

/** The operator's operations, bound to a store (src/services/index.ts); `now`: the wall clock of grant events. */
export function createUsersService (deps: { store: Store, now?: () => number }) {
  const { db } = deps.store
  const wallClock = deps.now ?? Date.now
  return {
    create: async (input: { name: string, brandIds: number[] }) => await createUser(db, input),
    list: async () => await summarizeUsers(db),
    setDisabled: async (userId: string, disabled: boolean) => await setUserDisabled(db, userId, disabled),
    grant: async (userId: string, brandIds: number[]) => await grantBrands(db, userId, brandIds, wallClock),
    revoke: async (userId: string, brandIds: number[]) => await revokeBrands(db, userId, brandIds, wallClock),
    remove: async (userId: string) => await removeUser(db, userId),
    rotate: async (userId: string, graceSeconds = 0) => await rotateCredentials(db, userId, graceSeconds),
    createCredential: async (userId: string) => await createCredential(db, userId),
    listCredentials: async (userId: string) => await listCredentials(db, userId),
    revokeCredential: async (clientKey: string) => await revokeCredential(db, clientKey),
    activeClientKeyOf: async (userId: string) => (await findActiveCredentialOfUser(db, userId))?.client_key,
  }
}
export type UsersService = ReturnType<typeof createUsersService>
