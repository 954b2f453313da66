import { sql, type Kysely, type Selectable, type Transaction } from 'kysely'
import type { Database, WebhookEndpointsTable } from '../database.js'

/**
 * Webhook endpoints and their subscriptions. Plain functions; callers own transactions. The
 * signing secrets are read by one function only (readEndpointForDelivery, for the delivery worker):
 * every other read leaves them out, so they cannot reach an answer or a log by accident.
 */

type Db = Kysely<Database> | Transaction<Database>

export type EndpointRow = Omit<Selectable<WebhookEndpointsTable>, 'secret' | 'previous_secret'>
export type NewEndpointRow = Selectable<WebhookEndpointsTable>

const PUBLIC_COLUMNS = [
  'endpoint_id', 'user_id', 'url', 'description', 'status', 'disabled_by', 'disabled_reason',
  'previous_secret_expires_at', 'failing_since', 'created_at', 'updated_at',
] as const

export async function insertEndpoint (db: Db, row: NewEndpointRow, types: readonly string[]): Promise<void> {
  await db.insertInto('webhook_endpoints').values(row).execute()
  await replaceSubscriptions(db, row.endpoint_id, types)
}

export async function replaceSubscriptions (db: Db, endpointId: string, types: readonly string[]): Promise<void> {
  await db.deleteFrom('webhook_subscriptions').where('endpoint_id', '=', endpointId).execute()
  if (types.length > 0) await db.insertInto('webhook_subscriptions').values(types.map((type) => ({ endpoint_id: endpointId, type }))).execute()
}

export async function countEndpointsOfUser (db: Db, userId: string): Promise<number> {
  const row = await db.selectFrom('webhook_endpoints').select((eb) => eb.fn.countAll<number>().as('count')).where('user_id', '=', userId).executeTakeFirstOrThrow()
  return Number(row.count)
}

/** A user's endpoints, oldest first. */
export async function listEndpointsOfUser (db: Db, userId: string): Promise<EndpointRow[]> {
  return await db.selectFrom('webhook_endpoints').select(PUBLIC_COLUMNS).where('user_id', '=', userId).orderBy('created_at').orderBy('endpoint_id').execute()
}

/** Every endpoint (the operator's list), or one user's; oldest first. */
export async function listEndpoints (db: Db, filter: { userId?: string } = {}): Promise<EndpointRow[]> {
  let query = db.selectFrom('webhook_endpoints').select(PUBLIC_COLUMNS)
  if (filter.userId !== undefined) query = query.where('user_id', '=', filter.userId)
  return await query.orderBy('created_at').orderBy('endpoint_id').execute()
}

export async function findEndpoint (db: Db, endpointId: string): Promise<EndpointRow | undefined> {
  return await db.selectFrom('webhook_endpoints').select(PUBLIC_COLUMNS).where('endpoint_id', '=', endpointId).executeTakeFirst()
}

/** The subscribed types of each endpoint given. */
export async function subscriptionsOf (db: Db, endpointIds: readonly string[]): Promise<Map<string, string[]>> {
  const types = new Map<string, string[]>(endpointIds.map((id) => [id, []]))
  if (endpointIds.length === 0) return types
  const rows = await db.selectFrom('webhook_subscriptions').select(['endpoint_id', 'type']).where('endpoint_id', 'in', endpointIds).execute()
  for (const row of rows) types.get(row.endpoint_id)?.push(row.type)
  return types
}

/** Each endpoint's backlog: deliveries still pending, and when the oldest of them was created. */
export async function backlogOf (db: Db, endpointIds: readonly string[]): Promise<Map<string, { pending: number, oldestCreatedAt: string | null }>> {
  const backlog = new Map<string, { pending: number, oldestCreatedAt: string | null }>(endpointIds.map((id) => [id, { pending: 0, oldestCreatedAt: null }]))
  if (endpointIds.length === 0) return backlog
  const rows = await db.selectFrom('webhook_deliveries')
    .select((eb) => ['endpoint_id', eb.fn.countAll<number>().as('pending'), eb.fn.min('created_at').as('oldest')])
    .where('endpoint_id', 'in', endpointIds).where('status', '=', 'pending')
    .groupBy('endpoint_id')
    .execute()
  for (const row of rows) backlog.set(row.endpoint_id, { pending: Number(row.pending), oldestCreatedAt: row.oldest === null ? null : String(row.oldest) })
  return backlog
}

export type EndpointChanges = Partial<Pick<Selectable<WebhookEndpointsTable>,
  'url' | 'description' | 'status' | 'disabled_by' | 'disabled_reason' | 'secret' | 'previous_secret' | 'previous_secret_expires_at' | 'failing_since'>> & { updated_at: string }

export async function updateEndpoint (db: Db, endpointId: string, changes: EndpointChanges): Promise<void> {
  await db.updateTable('webhook_endpoints').set(changes).where('endpoint_id', '=', endpointId).execute()
}

/** Deletes the endpoint; its subscriptions, deliveries and attempts go with it (ON DELETE CASCADE). */
export async function deleteEndpoint (db: Db, endpointId: string): Promise<void> {
  await db.deleteFrom('webhook_endpoints').where('endpoint_id', '=', endpointId).execute()
}

/** What the delivery worker needs of an endpoint, with the secrets that sign now. */
export interface EndpointForDelivery {
  userId: string
  url: string
  status: 'enabled' | 'disabled'
  failing: boolean
  /** The current secret and, while it still signs, the previous one. */
  secrets: string[]
}

/** The endpoint as the delivery worker needs it, secrets included: for the worker only. */
export async function readEndpointForDelivery (db: Db, endpointId: string, at: string): Promise<EndpointForDelivery | undefined> {
  const row = await db.selectFrom('webhook_endpoints')
    .select(['user_id', 'url', 'status', 'failing_since', 'secret', 'previous_secret', sql<number>`case when previous_secret_expires_at > ${at} then 1 else 0 end`.as('previous_live')])
    .where('endpoint_id', '=', endpointId)
    .executeTakeFirst()
  if (row === undefined) return undefined
  return {
    userId: row.user_id,
    url: row.url,
    status: row.status,
    failing: row.failing_since !== null,
    secrets: row.previous_secret !== null && Number(row.previous_live) === 1 ? [row.secret, row.previous_secret] : [row.secret],
  }
}

/**
 * Holds the owner's row until the transaction ends (PostgreSQL), so two requests creating
 * endpoints at once count one after the other; SQLite has one writer at a time already.
 */
export async function lockOwner (db: Db, dialect: 'sqlite' | 'postgres', userId: string): Promise<void> {
  if (dialect === 'postgres') await db.selectFrom('users').select('user_id').where('user_id', '=', userId).forUpdate().execute()
}

/** A new secret; the current one becomes the previous one and keeps signing until `previousExpiresAt`. */
export async function rotateSecret (db: Db, endpointId: string, secret: string, previousExpiresAt: string, at: string): Promise<void> {
  await db.updateTable('webhook_endpoints')
    .set((eb) => ({ previous_secret: eb.ref('secret'), previous_secret_expires_at: previousExpiresAt, secret, updated_at: at }))
    .where('endpoint_id', '=', endpointId)
    .execute()
}
