import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { importSources } from '../../src/services/import/import.service.js'
import { DIALECTS, createTestStore, type TestStore } from '../helpers/stores.js'
import { memorySource } from '../posts/posts-fixtures.js'

/**
 * Days at the calendar's ends go through the import into the read model and the change events:
 * SQLite's date() has no year 10000, so "the last day of 9999-12" must not be computed as
 * "the first of the next month, less a day" (the month's rows then left the read model).
 */
for (const dialect of DIALECTS) {
  describe(`import of days at the calendar's ends (${dialect})`, () => {
    let test: TestStore
    before(async () => { test = await createTestStore(dialect) })
    after(async () => { await test.cleanup() })

    it('sums 0001-01-01, 9999-12-30 and 9999-12-31 into the read model and names them in the event', async () => {
      await importSources(test.store, [memorySource([
        { kind: 'brand', brand_id: 1, brand_name: 'A' },
        { kind: 'account', platform: 'fb', account_id: 10, brand_id: 1, account_name: 'A fb' },
        { kind: 'daily', platform: 'fb', account_id: 10, date: '9999-12-31', views: 31 },
        { kind: 'daily', platform: 'fb', account_id: 10, date: '9999-12-30', views: 30 },
        { kind: 'daily', platform: 'fb', account_id: 10, date: '0001-01-01', views: 1 },
      ])])
      const days = await test.store.db.selectFrom('brand_daily').select(['date', 'views']).orderBy('date').execute()
      assert.deepEqual(days.map((day) => [day.date, Number(day.views)]), [['0001-01-01', 1], ['9999-12-30', 30], ['9999-12-31', 31]])
      const months = await test.store.db.selectFrom('brand_monthly').select(['month', 'views']).orderBy('month').execute()
      assert.deepEqual(months.map((month) => [month.month, Number(month.views)]), [['0001-01-01', 1], ['9999-12-01', 61]])
      const event = await test.store.db.selectFrom('change_events').select('data').where('type', '=', 'analytics.updated').executeTakeFirstOrThrow()
      assert.deepEqual(JSON.parse(event.data), {
        brand_id: 1,
        accounts: [{ platform: 'fb', account_id: 10, dates: [{ since: '0001-01-01', until: '0001-01-01' }, { since: '9999-12-30', until: '9999-12-31' }] }],
      })
    })
  })
}
