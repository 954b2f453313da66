import { sql, type Kysely } from 'kysely'

/**
 * Webhooks (docs/storage.md "Webhooks"):
 * - `webhook_endpoints`: a partner's endpoints, with the signing secret (and, for 24 hours after a
 *   rotation, the previous one): the server must sign, so the secret is kept as issued;
 * - `webhook_subscriptions`: which event types each endpoint takes (the fan-out joins on it);
 * - `webhook_deliveries`: the outbox, one row per endpoint and event, written in the transaction
 *   that records the event; the worker claims due rows with a lease (`lease_until_ms`);
 * - `webhook_attempts`: each attempt of a delivery, for the delivery log.
 * Queue times are integer milliseconds since the epoch (`*_ms`): compared on every claim, the same
 * way in both stores; times shown to partners are timestamps as elsewhere.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>

export async function up (db: AnyDb): Promise<void> {
  await db.schema.createTable('webhook_endpoints')
    .addColumn('endpoint_id', 'text', (col) => col.primaryKey())
    .addColumn('user_id', 'text', (col) => col.notNull().references('users.user_id').onDelete('cascade'))
    .addColumn('url', 'text', (col) => col.notNull())
    .addColumn('description', 'text')
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('disabled_by', 'text')
    .addColumn('disabled_reason', 'text')
    .addColumn('secret', 'text', (col) => col.notNull())
    .addColumn('previous_secret', 'text')
    .addColumn('previous_secret_expires_at', 'timestamptz')
    /** Since when every attempt to this endpoint has failed (null after a success). */
    .addColumn('failing_since', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (col) => col.notNull())
    .addColumn('updated_at', 'timestamptz', (col) => col.notNull())
    .execute()
  await db.schema.createIndex('webhook_endpoints_user_idx').on('webhook_endpoints').columns(['user_id', 'created_at']).execute()

  await db.schema.createTable('webhook_subscriptions')
    .addColumn('endpoint_id', 'text', (col) => col.notNull().references('webhook_endpoints.endpoint_id').onDelete('cascade'))
    .addColumn('type', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('webhook_subscriptions_pk', ['endpoint_id', 'type'])
    .execute()
  // The fan-out starts from an event's type.
  await db.schema.createIndex('webhook_subscriptions_type_idx').on('webhook_subscriptions').columns(['type', 'endpoint_id']).execute()

  await db.schema.createTable('webhook_deliveries')
    .addColumn('endpoint_id', 'text', (col) => col.notNull().references('webhook_endpoints.endpoint_id').onDelete('cascade'))
    .addColumn('event_id', 'bigint', (col) => col.notNull())
    .addColumn('event_type', 'text', (col) => col.notNull())
    /** The event's sync, copied so a claim can hold back events a replica has not yet seen. */
    .addColumn('sync_id', 'bigint')
    /** webhook.test only: the body as sent (its event is not in change_events). */
    .addColumn('test_payload', 'text')
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('skip_reason', 'text')
    .addColumn('attempt_count', 'integer', (col) => col.notNull())
    /** Attempts since the delivery was last queued (the retry schedule's position). */
    .addColumn('round_attempts', 'integer', (col) => col.notNull())
    .addColumn('next_attempt_ms', 'bigint')
    .addColumn('lease_until_ms', 'bigint')
    .addColumn('lease_token', 'text')
    .addColumn('created_at', 'timestamptz', (col) => col.notNull())
    .addPrimaryKeyConstraint('webhook_deliveries_pk', ['endpoint_id', 'event_id'])
    .execute()
  // The claim: an endpoint's due deliveries in claim order, read straight off the index (only pending rows are indexed).
  await db.schema.createIndex('webhook_deliveries_due_idx').on('webhook_deliveries').columns(['endpoint_id', 'next_attempt_ms', 'event_id'])
    .where(sql.ref('status'), '=', 'pending').execute()
  // The delivery log filtered by status, newest first.
  await db.schema.createIndex('webhook_deliveries_status_idx').on('webhook_deliveries').columns(['endpoint_id', 'status', 'event_id']).execute()
  // The retention deletes by age.
  await db.schema.createIndex('webhook_deliveries_created_idx').on('webhook_deliveries').columns(['created_at']).execute()

  await db.schema.createTable('webhook_attempts')
    .addColumn('endpoint_id', 'text', (col) => col.notNull())
    .addColumn('event_id', 'bigint', (col) => col.notNull())
    .addColumn('attempt_number', 'integer', (col) => col.notNull())
    .addColumn('attempted_at', 'timestamptz', (col) => col.notNull())
    .addColumn('duration_ms', 'integer', (col) => col.notNull())
    .addColumn('http_status', 'integer')
    .addColumn('error', 'text')
    .addColumn('response_excerpt', 'text')
    .addPrimaryKeyConstraint('webhook_attempts_pk', ['endpoint_id', 'event_id', 'attempt_number'])
    .addForeignKeyConstraint('webhook_attempts_delivery_fk', ['endpoint_id', 'event_id'], 'webhook_deliveries', ['endpoint_id', 'event_id'], (fk) => fk.onDelete('cascade'))
    .execute()
}

export async function down (db: AnyDb): Promise<void> {
  for (const table of ['webhook_attempts', 'webhook_deliveries', 'webhook_subscriptions', 'webhook_endpoints']) await db.schema.dropTable(table).execute()
}
