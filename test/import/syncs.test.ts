import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { sql } from 'kysely'
import { ImportRejectedError, importSources } from '../../src/services/import/import.service.js'
import { DIALECTS, createTestStore, type TestStore } from '../helpers/stores.js'
import { account, allowSyncs, brand, changeState, daily, eventsOf, importRecords, post, refuseSyncs, source } from './sync-helpers.js'

/**
 * Every committed import is a sync (docs/import.md "Syncs"): recorded in the import's own
 * transaction with what it read and what it changed; a rejected or rolled-back import leaves no
 * sync, no event, no coverage change; an import that changes nothing is a sync without events.
 */

const WHOLE_SECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/
const NOTHING = { brand: { created: 0, renamed: 0 }, account: { created: 0, updated: 0, moved: 0 }, daily: { inserted: 0, changed: 0 }, post: { added: 0, changed: 0 } }

for (const dialect of DIALECTS) {
  describe(`syncs (${dialect})`, () => {
    let test: TestStore
    before(async () => { test = await createTestStore(dialect) })
    after(async () => { await test.cleanup() })

    const FIRST = [
      brand(1), account('ig', 10, 1), account('fb', 11, 1),
      daily('ig', 10, '2026-11-01'), daily('ig', 10, '2026-11-02'), daily('fb', 11, '2026-11-01'),
      post('fb', 11, 'p1'),
    ]

    it('records a committed import: id, times, sources, counts read and changed, brands, accounts, events', async () => {
      const summary = await importSources(test.store, [source('brands.ndjson', FIRST.slice(0, 3)), source('rows.ndjson', FIRST.slice(3))])
      const sync = summary.sync
      assert.ok(sync !== null)
      assert.equal(sync.syncId, 1)
      assert.match(sync.startedAt, WHOLE_SECONDS)
      assert.match(sync.committedAt, WHOLE_SECONDS)
      assert.ok(sync.startedAt <= sync.committedAt)
      assert.deepEqual(sync.sourceFiles, ['brands.ndjson', 'rows.ndjson'])
      assert.deepEqual(sync.counts, {
        read: { brand: 1, account: 2, daily: 3, post: 1 },
        changed: { brand: { created: 1, renamed: 0 }, account: { created: 2, updated: 0, moved: 0 }, daily: { inserted: 3, changed: 0 }, post: { added: 1, changed: 0 } },
      })
      assert.deepEqual(sync.brandIds, [1])
      assert.deepEqual(sync.accounts, [{ platform: 'fb', account_id: 11 }, { platform: 'ig', account_id: 10 }])
      // brand.updated, two account.updated, analytics.updated, posts.updated: numbered 1–5 in that order.
      assert.deepEqual([sync.firstEventNumber, sync.eventCount], [1, 5])
      const events = await eventsOf(test.store, 1)
      assert.deepEqual(events.map((event) => [event.event_id, event.type, event.brand_id, event.sync_id]),
        [[1, 'brand.updated', 1, 1], [2, 'account.updated', 1, 1], [3, 'account.updated', 1, 1], [4, 'analytics.updated', 1, 1], [5, 'posts.updated', 1, 1]])
      assert.ok(events.every((event) => new Date(event.created_at).toISOString().slice(0, 19) + 'Z' === sync.committedAt))

      // The row as stored, JSON columns included (docs/storage.md "Syncs and the change feed").
      const row = await test.store.db.selectFrom('syncs').selectAll().where('sync_id', '=', 1).executeTakeFirstOrThrow()
      assert.deepEqual(JSON.parse(row.source_files), ['brands.ndjson', 'rows.ndjson'])
      assert.deepEqual(JSON.parse(row.counts), sync.counts)
      assert.deepEqual(JSON.parse(row.brand_ids), [1])
      assert.deepEqual(JSON.parse(row.accounts), [['fb', 11], ['ig', 10]])
      assert.deepEqual([Number(row.first_event_id), Number(row.event_count)], [1, 5])
      assert.deepEqual(await test.store.db.selectFrom('change_clock').select(['last_sync_id', 'last_event_id']).executeTakeFirstOrThrow().then((clock) => [Number(clock.last_sync_id), Number(clock.last_event_id)]), [1, 5])
    })

    it('a re-import of identical rows is a sync with zero changes and no events, and writes no row', async () => {
      const stamps = async () => ({
        brand: (await test.store.db.selectFrom('brands').select('updated_at').where('brand_id', '=', 1).executeTakeFirstOrThrow()).updated_at,
        account: (await test.store.db.selectFrom('accounts').select('updated_at').where('account_id', '=', 10).executeTakeFirstOrThrow()).updated_at,
        post: (await sql<{ updated_at: string, revision: number }>`select updated_at, revision from posts where id = 'p1'`.execute(test.store.db)).rows,
        brandDays: await test.store.db.selectFrom('brand_daily').select(['date', 'entry_json']).orderBy('date').execute(),
        // PostgreSQL: a row version's creating transaction; any write, even of equal values, changes it.
        versions: dialect === 'postgres'
          ? (await sql<{ v: string }>`select xmin::text as v from daily_metrics union all select xmin::text from posts union all select xmin::text from accounts union all select xmin::text from brands union all select xmin::text from brand_daily`.execute(test.store.db)).rows.map((row) => row.v).sort()
          : [],
      })
      const before = { stamps: await stamps(), state: await changeState(test) }
      // Imported at least a second later, so a rewritten row would carry another updated_at.
      await new Promise((resolve) => setTimeout(resolve, 1100))
      const sync = await importRecords(test.store, FIRST)
      assert.equal(sync.syncId, 2)
      assert.deepEqual(sync.counts, { read: { brand: 1, account: 2, daily: 3, post: 1 }, changed: NOTHING })
      assert.deepEqual([sync.brandIds, sync.accounts, sync.firstEventNumber, sync.eventCount], [[], [], null, 0])
      assert.deepEqual(await eventsOf(test.store, 2), [])
      assert.deepEqual(await stamps(), before.stamps)
      const after = await changeState(test)
      assert.deepEqual(after, { ...before.state, syncs: [1, 2], clock: [2, 5] })
    })

    it('sets coverage sync_id and synced_at only for the accounts whose daily rows it changed', async () => {
      const sync = await importRecords(test.store, [daily('ig', 10, '2026-11-02', 7), daily('fb', 11, '2026-11-01')])
      const coverage = await test.store.db.selectFrom('account_coverage').selectAll().orderBy('platform').execute()
      assert.deepEqual(coverage.map((row) => [row.platform, Number(row.account_id), row.first_date, row.last_date, Number(row.sync_id)]),
        [['fb', 11, '2026-11-01', '2026-11-01', 1], ['ig', 10, '2026-11-01', '2026-11-02', sync.syncId]])
      const ig = coverage.find((row) => row.platform === 'ig')
      assert.equal(new Date(ig?.synced_at ?? '').toISOString().slice(0, 19) + 'Z', sync.committedAt)
      assert.deepEqual(sync.counts.changed, { ...NOTHING, daily: { inserted: 0, changed: 1 } })
    })

    it('a rejected file leaves no sync, no event, no coverage change', async () => {
      const before = await changeState(test)
      await assert.rejects(importSources(test.store, [source('bad.ndjson', [daily('ig', 10, '2026-12-01', 3), daily('ig', 99, '2026-12-01')])]), ImportRejectedError)
      assert.deepEqual(await changeState(test), before)
    })

    it('an import rolled back at its last step leaves no sync, no event, no coverage change, and takes no number', { timeout: 60_000 }, async () => {
      const before = await changeState(test)
      await refuseSyncs(test)
      try {
        await assert.rejects(importRecords(test.store, [brand(2), account('tk', 20, 2), daily('tk', 20, '2026-11-03'), daily('ig', 10, '2026-12-24', 5)]), /refused by the test trigger/)
        assert.deepEqual(await changeState(test), before)
      } finally {
        await allowSyncs(test)
      }
      const sync = await importRecords(test.store, [brand(2), account('tk', 20, 2), daily('tk', 20, '2026-11-03')])
      assert.equal(sync.syncId, before.clock[0] as number + 1)
      assert.equal(sync.firstEventNumber, before.clock[1] as number + 1)
    })

    it('a dry run records nothing', async () => {
      const before = await changeState(test)
      const summary = await importSources(test.store, [source('dry.ndjson', [daily('ig', 10, '2026-12-02', 3)])], { dryRun: true })
      assert.equal(summary.sync, null)
      assert.deepEqual(await changeState(test), before)
    })

    it('counts a key by its first write in the import: inserted then changed is inserted, also across write batches', { timeout: 120_000 }, async () => {
      // More rows than one PostgreSQL batch (20,000) between the two writes of the same day.
      const filler = Array.from({ length: 20_500 }, (_, index) => daily('tk', 20, new Date(Date.UTC(1900, 0, 1) + index * 86_400_000).toISOString().slice(0, 10)))
      const sync = await importRecords(test.store, [daily('ig', 10, '2027-01-01', 1), ...filler, daily('ig', 10, '2027-01-01', 2), daily('ig', 10, '2026-11-01', 1), daily('ig', 10, '2026-11-01', 9)])
      assert.deepEqual(sync.counts.changed.daily, { inserted: 20_501, changed: 1 })
      const row = await test.store.db.selectFrom('daily_metrics').select('views').where('platform', '=', 'ig').where('account_id', '=', 10).where('date', '=', '2027-01-01').executeTakeFirstOrThrow()
      assert.equal(row.views, 2)
    })
  })
}
