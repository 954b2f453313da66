import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { addDays } from '../../src/domain/dates.js'
import type { Store } from '../../src/storage/db.js'
import { aggStatement, periodValues, runningEdgesApply } from '../../src/storage/queries/brand-reports.query.js'
import { createStatementRunner } from '../../src/storage/prepared.js'
import { generateDataset, insertDatasetAndReadModel, seededRandom } from '../helpers/analytics-fixtures.js'
import { createTestStore, DIALECTS, type TestStore } from '../helpers/stores.js'
import { importFiles, ndjson, tempFiles } from '../import/import-helpers.js'

/**
 * The agg statement of one brand (`aggStatement(dialect, 'one')`, what GET /analytics/?type=agg
 * with one brand_id reads: its edges from brand_daily_running) gives, row for row and value for
 * value, what the statement of a brand list (its edges' brand-days summed) gives for that brand
 * alone, over many random windows: inside one month, across a few,
 * starting or ending on a month's first or last day, before and after the data; on a dataset with
 * missing days and null metrics (test/helpers/analytics-fixtures.ts), for brands with accounts,
 * without (3) and unknown (9).
 */

const START = '2025-10-20'
const DAYS = 260
const DATASET = generateDataset({ seed: 31031, start: START, days: DAYS })

/** Random windows, then the edge cases a month split has: whole months, a month's last day, one day. */
function windows (): Array<{ brand: number, since: string, until: string }> {
  const random = seededRandom(7)
  const pick = (max: number): number => Math.floor(random() * (max + 1))
  const brands = [1, 2, 4, 1, 2, 3, 9]
  const found: Array<{ brand: number, since: string, until: string }> = []
  for (let index = 0; index < 480; index += 1) {
    const since = addDays(START, pick(DAYS + 30) - 20)
    const length = [1, 7, 30, 90, 200][index % 5] as number
    found.push({ brand: brands[index % brands.length] as number, since, until: addDays(since, pick(length - 1)) })
  }
  for (const brand of [1, 2]) {
    found.push(
      { brand, since: '2025-11-01', until: '2026-02-28' },
      { brand, since: '2025-11-30', until: '2025-12-01' },
      { brand, since: '2025-12-01', until: '2025-12-31' },
      { brand, since: '2025-12-31', until: '2025-12-31' },
      { brand, since: '2025-10-20', until: '2026-07-06' },
    )
  }
  return found
}

for (const dialect of DIALECTS) {
  describe(`agg statements of one brand (${dialect})`, () => {
    let test: TestStore
    let store: Store
    before(async () => {
      test = await createTestStore(dialect)
      store = test.store
      await insertDatasetAndReadModel(store, DATASET)
    })
    after(async () => { await test.cleanup() })

    /** Every window the one-brand statement answers compared with the list statement; how many had rows, and how many it left to the list. */
    async function compareWindows (): Promise<{ withRows: number, withinMonth: number }> {
      const runner = createStatementRunner(store)
      const one = aggStatement(dialect, 'one')
      const list = aggStatement(dialect)
      assert.ok(!one.parameters.includes('brands') && one.parameters.includes('brand'), `one brand is bound as brand, not a list: ${one.parameters.join(',')}`)
      let withRows = 0
      let withinMonth = 0
      for (const window of windows()) {
        if (!runningEdgesApply(window)) {
          // A period inside one month ending before its last day: the reader sums its days with the list statement.
          assert.equal(window.since.slice(0, 7), window.until.slice(0, 7), `${window.since} … ${window.until} is one month's part`)
          withinMonth += 1
          continue
        }
        const values = periodValues([window.brand], window)
        const expected = await runner.rows(list, values)
        const seen = await runner.rows(one, values)
        assert.deepEqual(seen, expected, `brand ${window.brand}, ${window.since} … ${window.until}`)
        if (expected.length > 0) withRows += 1
      }
      return { withRows, withinMonth }
    }

    it('answers every window as the brand-list statement does for that brand', async () => {
      const { withRows, withinMonth } = await compareWindows()
      assert.ok(withRows > 150, `only ${withRows} windows had rows to compare`)
      assert.ok(withinMonth > 10, `only ${withinMonth} windows inside one month were left to the list statement`)
    })

    it('still does after an import changes days, nulls a metric, adds days and moves an account to another brand', async () => {
      const files = tempFiles()
      try {
        const records = [
          { kind: 'account', platform: 'ig', account_id: 101, brand_id: 4, account_name: 'Moved' },
          { kind: 'daily', platform: 'fb', account_id: 100, date: '2025-12-15', views: 123456, reach: null },
          { kind: 'daily', platform: 'fb', account_id: 100, date: '2026-01-31', views: 7, reach: 70 },
          { kind: 'daily', platform: 'li', account_id: 201, date: '2026-03-01', views: 9, reach: 90 },
          { kind: 'daily', platform: 'fb', account_id: 400, date: '2026-07-20', views: 11, reach: 110 },
        ]
        const outcome = await importFiles(store, [files.write('changes.ndjson', ndjson(...records))])
        assert.deepEqual(outcome.errors, [])
        assert.ok(outcome.summary !== undefined, 'the import committed')
      } finally {
        files.cleanup()
      }
      const { withRows } = await compareWindows()
      assert.ok(withRows > 150, `only ${withRows} windows had rows to compare`)
    })
  })
}
