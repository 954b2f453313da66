import { sql, type Kysely, type Transaction } from 'kysely'
import type { Database } from '../database.js'

/**
 * The webhook outbox's writer (docs/webhooks.md "Delivery"; docs/storage.md "Webhooks"): called by
 * the change log's one writer (insertEvents), in the transaction that records the events, so a
 * delivery exists exactly when its event does — a rolled-back import sends nothing, and a
 * committed one loses nothing whatever happens to the process afterwards.
 *
 * One set-based statement over the new event numbers: every enabled endpoint subscribed to an
 * event's type whose partner sees the event — its brand is granted to the partner, or, for an
 * access.* event, the partner is the user it names — gets one pending delivery, due now.
 */

type Db = Kysely<Database> | Transaction<Database>

export async function fanOutEvents (db: Db, events: { firstEventId: number, lastEventId: number, dueMs: number }): Promise<void> {
  await db.insertInto('webhook_deliveries')
    .columns(['endpoint_id', 'event_id', 'event_type', 'sync_id', 'test_payload', 'status', 'skip_reason', 'attempt_count', 'round_attempts', 'next_attempt_ms', 'lease_until_ms', 'lease_token', 'created_at'])
    .expression((eb) => eb.selectFrom('change_events as e')
      .innerJoin('webhook_subscriptions as s', 's.type', 'e.type')
      .innerJoin('webhook_endpoints as w', 'w.endpoint_id', 's.endpoint_id')
      .where('e.event_id', '>=', events.firstEventId)
      .where('e.event_id', '<=', events.lastEventId)
      .where('w.status', '=', 'enabled')
      .where((where) => where.or([
        where('e.user_id', '=', where.ref('w.user_id')),
        where.and([
          where('e.user_id', 'is', null),
          where.exists(where.selectFrom('user_brands as ub').select(sql.lit(1).as('one')).whereRef('ub.user_id', '=', 'w.user_id').whereRef('ub.brand_id', '=', 'e.brand_id')),
        ]),
      ]))
      .select([
        'w.endpoint_id',
        'e.event_id',
        'e.type',
        'e.sync_id',
        sql<null>`null`.as('test_payload'),
        sql.lit('pending').as('status'),
        sql<null>`null`.as('skip_reason'),
        sql.lit(0).as('attempt_count'),
        sql.lit(0).as('round_attempts'),
        sql<number>`cast(${events.dueMs} as bigint)`.as('next_attempt_ms'),
        sql<null>`null`.as('lease_until_ms'),
        sql<null>`null`.as('lease_token'),
        'e.created_at',
      ]))
    .execute()
}
