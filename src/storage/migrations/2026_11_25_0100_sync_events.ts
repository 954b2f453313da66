import type { Kysely } from 'kysely'

/**
 * Which events a sync emitted (docs/storage.md "Syncs and the change feed"): its events take
 * consecutive numbers in one step, so the first number and the count name them all, and an
 * operator can go from a sync to its events (`imports show`) and back (`evt_N` lies in
 * [first_event_id, first_event_id + event_count)). A sync that changed nothing has none.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>

export async function up (db: AnyDb): Promise<void> {
  await db.schema.alterTable('syncs').addColumn('first_event_id', 'bigint').execute()
  await db.schema.alterTable('syncs').addColumn('event_count', 'bigint', (col) => col.notNull().defaultTo(0)).execute()
}

export async function down (db: AnyDb): Promise<void> {
  await db.schema.alterTable('syncs').dropColumn('event_count').execute()
  await db.schema.alterTable('syncs').dropColumn('first_event_id').execute()
}
