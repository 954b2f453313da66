import { sql } from 'kysely'
import type { RecordSource } from '../../src/services/import/source.js'
import { importSources, type ImportSummary } from '../../src/services/import/import.service.js'
import type { Sync } from '../../src/domain/syncs.js'
import type { Store } from '../../src/storage/db.js'
import type { TestStore } from '../helpers/stores.js'

/** Records, sources and readers for the sync and change-event tests (docs/import.md "Syncs"). */

export const brand = (id: number, name = `Brand ${id}`) => ({ kind: 'brand', brand_id: id, brand_name: name })
export const account = (platform: string, id: number, brandId: number, extra: Record<string, unknown> = {}) =>
  ({ kind: 'account', platform, account_id: id, brand_id: brandId, account_name: `Account ${id}`, ...extra })
export const daily = (platform: string, id: number, date: string, views = 1) => ({ kind: 'daily', platform, account_id: id, date, views })
export const post = (platform: string, accountId: number, id: string, views = 1) =>
  ({ kind: 'post', platform, account_id: accountId, id, created_time: '2026-11-01T10:00:00Z', views })

export function source (name: string, records: unknown[]): RecordSource {
  return { name, read: async function * () { for (const [index, value] of records.entries()) yield { line: index + 1, value } } }
}

/** Imports the records as one source named `name` and returns its sync. */
export async function importRecords (store: Store, records: unknown[], name = 'sync-test.ndjson'): Promise<Sync> {
  const summary: ImportSummary = await importSources(store, [source(name, records)])
  if (summary.sync === null) throw new Error('a committed import has a sync')
  return summary.sync
}

export interface StoredEvent { event_id: number, type: string, brand_id: number, sync_id: number | null, created_at: string, data: unknown }

/** The events a sync wrote, in number order, their data parsed. */
export async function eventsOf (store: Store, syncId: number): Promise<StoredEvent[]> {
  const rows = await store.db.selectFrom('change_events').selectAll().where('sync_id', '=', syncId).orderBy('event_id').execute()
  return rows.map((row) => ({
    event_id: Number(row.event_id),
    type: row.type,
    brand_id: Number(row.brand_id),
    sync_id: row.sync_id === null ? null : Number(row.sync_id),
    created_at: row.created_at,
    data: JSON.parse(row.data) as unknown,
  }))
}

/** Just type and data, for exact comparisons. */
export async function eventDataOf (store: Store, syncId: number): Promise<Array<{ type: string, data: unknown }>> {
  return (await eventsOf(store, syncId)).map((event) => ({ type: event.type, data: event.data }))
}

/** Everything a rolled-back or rejected import must leave as it was. */
export async function changeState (test: TestStore) {
  const { db } = test.store
  return {
    syncs: (await db.selectFrom('syncs').select('sync_id').orderBy('sync_id').execute()).map((row) => Number(row.sync_id)),
    events: (await db.selectFrom('change_events').select('event_id').orderBy('event_id').execute()).map((row) => Number(row.event_id)),
    clock: await db.selectFrom('change_clock').select(['last_sync_id', 'last_event_id']).executeTakeFirstOrThrow().then((row) => [Number(row.last_sync_id), Number(row.last_event_id)]),
    coverage: (await db.selectFrom('account_coverage').selectAll().orderBy('platform').orderBy('account_id').execute())
      .map((row) => [row.platform, Number(row.account_id), row.first_date, row.last_date, row.synced_at, row.sync_id === null ? null : Number(row.sync_id)]),
    daily: (await db.selectFrom('daily_metrics').select(['platform', 'account_id', 'date', 'views']).orderBy('platform').orderBy('account_id').orderBy('date').execute())
      .map((row) => [row.platform, Number(row.account_id), row.date, row.views]),
  }
}

/** Makes the store refuse the import's last step: inserting its sync row (PostgreSQL: at COMMIT itself, a deferred constraint trigger). */
export async function refuseSyncs (test: TestStore): Promise<void> {
  if (test.store.dialect === 'sqlite') {
    await sql`create trigger refuse_sync before insert on syncs begin select raise(abort, 'refused by the test trigger'); end`.execute(test.store.db)
    return
  }
  await sql`create function refuse_sync() returns trigger language plpgsql as $$ begin raise exception 'refused by the test trigger'; end $$`.execute(test.store.db)
  await sql`create constraint trigger refuse_sync after insert on syncs deferrable initially deferred for each row execute function refuse_sync()`.execute(test.store.db)
}

export async function allowSyncs (test: TestStore): Promise<void> {
  await sql`drop trigger refuse_sync${sql.raw(test.store.dialect === 'postgres' ? ' on syncs' : '')}`.execute(test.store.db)
  if (test.store.dialect === 'postgres') await sql`drop function refuse_sync()`.execute(test.store.db)
}
