import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { importSources } from '../../src/services/import/import.service.js'
import { DIALECTS, createTestStore, type TestStore } from '../helpers/stores.js'
import { memorySource } from '../posts/posts-fixtures.js'

/** account_coverage follows the imports: first and last day with a row, and when an import last wrote the account's days. */

const daily = (accountId: number, date: string) => ({ kind: 'daily', platform: 'fb', account_id: accountId, date, views: 1 })

for (const dialect of DIALECTS) {
  describe(`account coverage, ${dialect}`, () => {
    let test: TestStore
    before(async () => { test = await createTestStore(dialect) })
    after(async () => { await test.cleanup() })

    const coverage = async () => (await test.store.db.selectFrom('account_coverage').select(['platform', 'account_id', 'first_date', 'last_date', 'synced_at']).orderBy('account_id').execute())
      .map((row) => ({ platform: row.platform, account_id: Number(row.account_id), first_date: row.first_date, last_date: row.last_date, synced: row.synced_at !== null }))

    it('is written for the accounts an import wrote days of, and widens with later imports', async () => {
      await importSources(test.store, [memorySource([
        { kind: 'brand', brand_id: 1, brand_name: 'A' },
        { kind: 'account', platform: 'fb', account_id: 10, brand_id: 1, account_name: 'A fb' },
        { kind: 'account', platform: 'fb', account_id: 11, brand_id: 1, account_name: 'A fb 2' },
        daily(10, '2026-11-03'), daily(10, '2026-11-01'),
      ])])
      assert.deepEqual(await coverage(), [
        { platform: 'fb', account_id: 10, first_date: '2026-11-01', last_date: '2026-11-03', synced: true },
      ])
      await importSources(test.store, [memorySource([daily(10, '2026-10-20'), daily(11, '2026-11-05')])])
      assert.deepEqual(await coverage(), [
        { platform: 'fb', account_id: 10, first_date: '2026-10-20', last_date: '2026-11-03', synced: true },
        { platform: 'fb', account_id: 11, first_date: '2026-11-05', last_date: '2026-11-05', synced: true },
      ])
    })

    it('is not written by a rejected import', async () => {
      await assert.rejects(importSources(test.store, [memorySource([daily(10, '2026-12-01'), { kind: 'daily', platform: 'fb', account_id: 99, date: '2026-12-01' }])]))
      assert.equal((await coverage())[0]?.last_date, '2026-11-03')
    })
  })
}
