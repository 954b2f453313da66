import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { DIALECTS, createTestStore, type TestStore } from '../helpers/stores.js'
import { account, brand, daily, eventDataOf, importRecords, post } from './sync-helpers.js'

/**
 * The change-feed events an import emits (docs/api-reference.md "Change feed", docs/import.md
 * "Syncs"): exactly what changed, per brand, in the feed's order; nothing for what did not.
 */

/** `count` days from `start`, every `step` days. */
function days (start: string, count: number, step = 1): string[] {
  return Array.from({ length: count }, (_, index) => new Date(Date.parse(`${start}T00:00:00Z`) + index * step * 86_400_000).toISOString().slice(0, 10))
}

for (const dialect of DIALECTS) {
  describe(`change events of an import (${dialect})`, () => {
    let test: TestStore
    before(async () => {
      test = await createTestStore(dialect)
      await importRecords(test.store, [
        brand(1, 'Acme'), brand(2, 'Bolt'),
        account('yt', 30, 1), account('fb', 31, 1), account('fb', 12, 1), account('ig', 40, 2, { network_id: 'n40' }),
        ...days('2026-11-01', 30).flatMap((date) => [daily('yt', 30, date), daily('fb', 31, date), daily('fb', 12, date), daily('ig', 40, date)]),
        post('fb', 31, 'p1'), post('fb', 31, 'p2'), post('ig', 40, 'p3'),
      ])
    })
    after(async () => { await test.cleanup() })

    it('changing one day of one account: exactly one analytics.updated, for its brand, with exactly that day', async () => {
      const sync = await importRecords(test.store, [daily('fb', 31, '2026-11-04'), daily('fb', 31, '2026-11-05', 2), daily('ig', 40, '2026-11-05')])
      assert.deepEqual(await eventDataOf(test.store, sync.syncId), [
        { type: 'analytics.updated', data: { brand_id: 1, accounts: [{ platform: 'fb', account_id: 31, dates: [{ since: '2026-11-05', until: '2026-11-05' }] }] } },
      ])
    })

    it('several scattered days: inclusive ascending ranges, accounts in canonical order, one event per brand', async () => {
      const sync = await importRecords(test.store, [
        // yt before fb in the file: the event orders fb, then yt; fb 12 before fb 31.
        ...['2026-11-20', '2026-11-07', '2026-11-08', '2026-11-09', '2026-11-30', '2026-12-01', '2026-12-02', '2026-11-11'].map((date) => daily('yt', 30, date, 5)),
        daily('fb', 31, '2026-11-03', 5), daily('fb', 12, '2026-11-28', 5), daily('fb', 12, '2026-11-29', 5),
        daily('ig', 40, '2026-10-31', 5), daily('ig', 40, '2026-11-01', 5), daily('ig', 40, '2026-11-03', 5),
      ])
      assert.deepEqual(await eventDataOf(test.store, sync.syncId), [
        {
          type: 'analytics.updated',
          data: {
            brand_id: 1,
            accounts: [
              { platform: 'fb', account_id: 12, dates: [{ since: '2026-11-28', until: '2026-11-29' }] },
              { platform: 'fb', account_id: 31, dates: [{ since: '2026-11-03', until: '2026-11-03' }] },
              {
                platform: 'yt',
                account_id: 30,
                dates: [
                  { since: '2026-11-07', until: '2026-11-09' }, { since: '2026-11-11', until: '2026-11-11' },
                  { since: '2026-11-20', until: '2026-11-20' }, { since: '2026-11-30', until: '2026-12-02' },
                ],
              },
            ],
          },
        },
        { type: 'analytics.updated', data: { brand_id: 2, accounts: [{ platform: 'ig', account_id: 40, dates: [{ since: '2026-10-31', until: '2026-11-01' }, { since: '2026-11-03', until: '2026-11-03' }] }] } },
      ])
      assert.deepEqual(sync.counts.changed.daily, { inserted: 3, changed: 11 })
    })

    it('days out of order and repeated in one import: merged into the same ranges, each day counted once', async () => {
      const sync = await importRecords(test.store, [
        ...['2027-03-10', '2027-03-09', '2027-03-08', '2027-03-12', '2027-03-09', '2027-03-11', '2027-03-20', '2027-03-08'].map((date, index) => daily('fb', 31, date, index + 10)),
        daily('fb', 31, '2026-11-10', 9),
      ])
      assert.deepEqual(await eventDataOf(test.store, sync.syncId), [
        {
          type: 'analytics.updated',
          data: {
            brand_id: 1,
            accounts: [{
              platform: 'fb',
              account_id: 31,
              dates: [{ since: '2026-11-10', until: '2026-11-10' }, { since: '2027-03-08', until: '2027-03-12' }, { since: '2027-03-20', until: '2027-03-20' }],
            }],
          },
        },
      ])
      // Six new days (inserted once each, whatever their later writes), one existing day changed.
      assert.deepEqual(sync.counts.changed.daily, { inserted: 6, changed: 1 })
    })

    it('thousands of ranges: every one, in order, whatever the pages they are read in', { timeout: 120_000 }, async () => {
      // 5,600 single days (every other day) for one account, then one range for another brand.
      const scattered = days('1990-01-01', 5600, 2)
      const sync = await importRecords(test.store, [...scattered.map((date) => daily('fb', 12, date)), ...days('1990-01-01', 3).map((date) => daily('ig', 40, date))])
      assert.deepEqual(await eventDataOf(test.store, sync.syncId), [
        { type: 'analytics.updated', data: { brand_id: 1, accounts: [{ platform: 'fb', account_id: 12, dates: scattered.map((date) => ({ since: date, until: date })) }] } },
        { type: 'analytics.updated', data: { brand_id: 2, accounts: [{ platform: 'ig', account_id: 40, dates: [{ since: '1990-01-01', until: '1990-01-03' }] }] } },
      ])
    })

    it('posts: added vs changed per account, identical ones not counted, one posts.updated per brand', async () => {
      const sync = await importRecords(test.store, [
        post('fb', 31, 'p1', 2), post('fb', 31, 'p2'), post('fb', 31, 'p4'), post('fb', 12, 'p5'),
        post('ig', 40, 'p3', 3), post('ig', 40, 'p6'), post('ig', 40, 'p7'),
      ])
      assert.deepEqual(await eventDataOf(test.store, sync.syncId), [
        {
          type: 'posts.updated',
          data: {
            brand_id: 1,
            accounts: [
              { platform: 'fb', account_id: 12, posts_added: 1, posts_changed: 0, added_post_ids: ['p5'], changed_post_ids: [], post_ids_truncated: false },
              { platform: 'fb', account_id: 31, posts_added: 1, posts_changed: 1, added_post_ids: ['p4'], changed_post_ids: ['p1'], post_ids_truncated: false },
            ],
          },
        },
        { type: 'posts.updated', data: { brand_id: 2, accounts: [{ platform: 'ig', account_id: 40, posts_added: 2, posts_changed: 1, added_post_ids: ['p6', 'p7'], changed_post_ids: ['p3'], post_ids_truncated: false }] } },
      ])
      assert.deepEqual(sync.counts.changed.post, { added: 4, changed: 2 })
    })

    it('posts: at most 100 ids of the added and 100 of the changed per account, ascending by their bytes, truncated flagged', async () => {
      // Ids whose order differs between byte order and a language collation (case, punctuation, accents).
      const spellings = (n: number): string[] => [`Q${n}`, `q${n}`, `q-${n}`, `é${n}`]
      const added = Array.from({ length: 40 }, (_, n) => spellings(n)).flat().reverse()
      const first = await importRecords(test.store, added.map((id) => post('yt', 30, id)))
      const byBytes = [...added].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)))
      assert.deepEqual(await eventDataOf(test.store, first.syncId), [
        { type: 'posts.updated', data: { brand_id: 1, accounts: [{ platform: 'yt', account_id: 30, posts_added: 160, posts_changed: 0, added_post_ids: byBytes.slice(0, 100), changed_post_ids: [], post_ids_truncated: true }] } },
      ])
      // 101 changed (one more than listed), 3 added, and another account of the brand within the bounds.
      const changed = byBytes.slice(0, 101).reverse()
      const second = await importRecords(test.store, [...changed.map((id) => post('yt', 30, id, 9)), post('yt', 30, 'new-2'), post('yt', 30, 'new-1'), post('yt', 30, 'New-3'), post('fb', 12, 'p5', 9)])
      assert.deepEqual(await eventDataOf(test.store, second.syncId), [
        {
          type: 'posts.updated',
          data: {
            brand_id: 1,
            accounts: [
              { platform: 'fb', account_id: 12, posts_added: 0, posts_changed: 1, added_post_ids: [], changed_post_ids: ['p5'], post_ids_truncated: false },
              { platform: 'yt', account_id: 30, posts_added: 3, posts_changed: 101, added_post_ids: ['New-3', 'new-1', 'new-2'], changed_post_ids: byBytes.slice(0, 100), post_ids_truncated: true },
            ],
          },
        },
      ])
    })

    it('brands: created and renamed; the same name is no change', async () => {
      const sync = await importRecords(test.store, [brand(1, 'Acme'), brand(2, 'Bolt Inc.'), brand(3, 'Cargo')])
      assert.deepEqual(await eventDataOf(test.store, sync.syncId), [
        { type: 'brand.updated', data: { brand_id: 2, brand_name: 'Bolt Inc.', change: 'renamed' } },
        { type: 'brand.updated', data: { brand_id: 3, brand_name: 'Cargo', change: 'created' } },
      ])
      assert.deepEqual(sync.counts.changed.brand, { created: 1, renamed: 1 })
    })

    it('accounts: created, updated (name, network id, avatar, permalink), moved (moved_out for the old brand, moved_in for the new)', async () => {
      const sync = await importRecords(test.store, [
        account('fb', 12, 1),
        account('fb', 31, 1, { permalink: 'https://facebook.com/31' }),
        account('ig', 40, 2, { network_id: 'n40-new' }),
        account('yt', 30, 3),
        account('tk', 50, 3),
      ])
      assert.deepEqual(await eventDataOf(test.store, sync.syncId), [
        { type: 'account.updated', data: { brand_id: 1, platform: 'fb', account_id: 31, account_name: 'Account 31', change: 'updated' } },
        { type: 'account.updated', data: { brand_id: 1, platform: 'yt', account_id: 30, account_name: 'Account 30', change: 'moved_out' } },
        { type: 'account.updated', data: { brand_id: 2, platform: 'ig', account_id: 40, account_name: 'Account 40', change: 'updated' } },
        { type: 'account.updated', data: { brand_id: 3, platform: 'tk', account_id: 50, account_name: 'Account 50', change: 'created' } },
        { type: 'account.updated', data: { brand_id: 3, platform: 'yt', account_id: 30, account_name: 'Account 30', change: 'moved_in' } },
      ])
      assert.deepEqual(sync.counts.changed.account, { created: 1, updated: 2, moved: 1 })
      assert.deepEqual(sync.brandIds, [1, 2, 3])
      // A move changes no daily row: no analytics.updated, but both brands' read model follows it.
      const brandDays = await test.store.db.selectFrom('brand_daily').select(['brand_id', 'rows_count']).where('date', '=', '2026-11-15').orderBy('brand_id').execute()
      assert.deepEqual(brandDays.map((row) => [Number(row.brand_id), Number(row.rows_count)]), [[1, 2], [2, 1], [3, 1]])
    })

    it('an account moved and renamed: moved_out, moved_in and updated; moved away and back in one import: nothing', async () => {
      const sync = await importRecords(test.store, [account('yt', 30, 1, { account_name: 'Tube' }), account('fb', 12, 2), account('fb', 12, 1)])
      assert.deepEqual(await eventDataOf(test.store, sync.syncId), [
        { type: 'account.updated', data: { brand_id: 1, platform: 'yt', account_id: 30, account_name: 'Tube', change: 'moved_in' } },
        { type: 'account.updated', data: { brand_id: 1, platform: 'yt', account_id: 30, account_name: 'Tube', change: 'updated' } },
        { type: 'account.updated', data: { brand_id: 3, platform: 'yt', account_id: 30, account_name: 'Tube', change: 'moved_out' } },
      ])
      assert.deepEqual(sync.counts.changed.account, { created: 0, updated: 1, moved: 1 })
    })

    it('a whole import in the feed\'s order: brand.updated, account.updated, analytics.updated, posts.updated, numbered consecutively', async () => {
      const sync = await importRecords(test.store, [post('tk', 60, 'p9'), daily('tk', 60, '2026-11-02'), account('tk', 60, 4), brand(4, 'Dune')])
      const events = await eventDataOf(test.store, sync.syncId)
      assert.deepEqual(events.map((event) => event.type), ['brand.updated', 'account.updated', 'analytics.updated', 'posts.updated'])
      const numbers = (await test.store.db.selectFrom('change_events').select('event_id').where('sync_id', '=', sync.syncId).orderBy('event_id').execute()).map((row) => Number(row.event_id))
      assert.deepEqual(numbers, [0, 1, 2, 3].map((offset) => (sync.firstEventNumber ?? 0) + offset))
    })
  })
}
