import assert from 'node:assert/strict'
import { after, before, beforeEach, describe, it } from 'node:test'
import { createTestStore, DIALECTS, type TestStore } from '../helpers/stores.js'
import { countRows, dailyRow, emptyStore, importFiles, ndjson, tempFiles, type TempFiles } from './import-helpers.js'

const ACCOUNTS = ndjson(
  { kind: 'brand', brand_id: 1, brand_name: 'Acme' },
  { kind: 'account', platform: 'fb', account_id: 10, brand_id: 1, account_name: 'Acme FB' },
  { kind: 'account', platform: 'ig', account_id: 20, brand_id: 1, account_name: 'Acme IG' },
)

for (const dialect of DIALECTS) {
  describe(`CSV daily import (${dialect})`, () => {
    let testStore: TestStore
    let files: TempFiles
    before(async () => {
      testStore = await createTestStore(dialect)
      files = tempFiles()
    })
    after(async () => {
      await testStore.cleanup()
      files.cleanup()
    })
    beforeEach(async () => {
      await emptyStore(testStore.store)
      await importFiles(testStore.store, [files.write('accounts.ndjson', ACCOUNTS)])
    })

    it('reads RFC 4180 quoting, CRLF lines and empty cells (not reported), aliases and money', async () => {
      const { store } = testStore
      const csv = files.write('daily.csv', [
        '"platform","account_id","date","views","revenue","reach","video_views_3s","views_video"',
        'fb,10,2026-11-01,"1200","12.5",3000,800,',
        '"Facebook",10,2026-11-02,,,,,',
        'instagram,"20",2026-11-01,900,0.000001,700,,55',
        '',
      ].join('\r\n'))
      const outcome = await importFiles(store, [csv])
      assert.deepEqual(outcome.errors, [])
      assert.deepEqual(outcome.summary?.counts, { brand: 0, account: 0, daily: 3, post: 0 })
      const first = await dailyRow(store, 'fb', 10, '2026-11-01')
      assert.equal(first?.views, 1200)
      assert.equal(first?.revenue_micros, 12_500_000)
      assert.equal(first?.video_views_3s, 800)
      assert.equal(first?.views_video, null, 'an empty cell for a field fb lacks is fine: not reported')
      const empty = await dailyRow(store, 'fb', 10, '2026-11-02')
      assert.equal(empty?.views, null)
      assert.equal(empty?.revenue_micros, null)
      const ig = await dailyRow(store, 'ig', 20, '2026-11-01')
      assert.equal(ig?.revenue_micros, 1)
      assert.equal(ig?.views_video, 55)
      assert.equal(ig?.video_views_3s, null)
    })

    it('rejects a non-empty cell for a field the row\'s platform lacks, with its line, and writes nothing', async () => {
      const { store } = testStore
      const before = await countRows(store)
      const csv = files.write('bad.csv', [
        'platform,account_id,date,views,video_views_3s',
        'fb,10,2026-11-01,1,5',
        'ig,20,2026-11-01,1,5',
        'ig,20,"2026-11-',
        '02",1,',
        'ig,20,2026-11-03,-1,',
        'ig,20,2026-11-04,1',
        'ig,99,2026-11-05,1,',
      ].join('\n'))
      const outcome = await importFiles(store, [csv])
      assert.deepEqual(outcome.errors, [
        `${csv}:3: video_views_3s does not apply to instagram (ig); leave it out or null`,
        // A quoted cell may span lines; the next record still gets its own line number.
        `${csv}:4: date must be a real calendar date YYYY-MM-DD (got "2026-11-\\n02")`,
        `${csv}:6: views must not be negative (got -1)`,
        `${csv}:7: expected 5 cells as in the header, got 4`,
        `${csv}:8: unknown account ig:99 (not in the database and not declared in this import)`,
      ])
      assert.deepEqual(await countRows(store), before)
    })

    it('checks the header once: unknown, repeated and missing columns', async () => {
      const { store } = testStore
      const typo = files.write('typo.csv', 'platform,account_id,date,vews\nfb,10,2026-11-01,1\n')
      const repeated = files.write('repeated.csv', 'platform,account_id,date,views,views\n')
      const missing = files.write('missing.csv', 'platform,date,views\nfb,2026-11-01,1\n')
      const outcome = await importFiles(store, [typo, repeated, missing])
      assert.deepEqual(outcome.errors, [
        `${typo}:1: unknown column(s) "vews" in the CSV header (a file is NDJSON, one JSON object per line, or CSV of daily rows whose header names fields such as platform,account_id,date,views)`,
        `${repeated}:1: column(s) "views" appear more than once in the CSV header`,
        `${missing}:1: the CSV header lacks the required column(s) account_id`,
      ])
    })

    it('reads the format from the content, whatever the file is called', async () => {
      const { store } = testStore
      const setup = files.write('setup.ndjson', ndjson({ kind: 'brand', brand_id: 1, brand_name: 'A' }, { kind: 'account', platform: 'fb', account_id: 10, brand_id: 1, account_name: 'A' }))
      const csvAsText = files.write('daily.txt', '\uFEFFplatform,account_id,date,views\nfb,10,2026-11-01,5\n')
      const ndjsonAsCsv = files.write('daily.csv', '\n' + ndjson({ kind: 'daily', platform: 'fb', account_id: 10, date: '2026-11-02', views: 6 }))
      const outcome = await importFiles(store, [setup, csvAsText, ndjsonAsCsv])
      assert.deepEqual(outcome.errors, [])
      assert.deepEqual(outcome.summary?.counts, { brand: 1, account: 1, daily: 2, post: 0 })
      assert.equal((await dailyRow(store, 'fb', 10, '2026-11-01'))?.views, 5)
      assert.equal((await dailyRow(store, 'fb', 10, '2026-11-02'))?.views, 6)
    })

    it('lets the name decide only when the first line is neither format', async () => {
      const { store } = testStore
      const setup = files.write('setup.ndjson', ndjson({ kind: 'brand', brand_id: 1, brand_name: 'A' }, { kind: 'account', platform: 'fb', account_id: 10, brand_id: 1, account_name: 'A' }))
      const csvAsNdjson = files.write('daily.ndjson', 'platform,account_id,date,views\nfb,10,2026-11-03,7\n')
      assert.deepEqual((await importFiles(store, [setup, csvAsNdjson])).errors, [])
      assert.equal((await dailyRow(store, 'fb', 10, '2026-11-03'))?.views, 7)
      const damaged = files.write('damaged.jsonl', 'NaN\n' + ndjson({ kind: 'daily', platform: 'fb', account_id: 10, date: '2026-11-04', views: 1 }))
      const outcome = await importFiles(store, [damaged])
      assert.equal(outcome.errors.length, 1)
      assert.match(outcome.errors[0] ?? '', new RegExp(`^${damaged.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:1: invalid JSON: `))
      assert.equal(await dailyRow(store, 'fb', 10, '2026-11-04'), undefined)
    })

    it('says what a file that is neither format should look like', async () => {
      const { store } = testStore
      const prose = files.write('notes.txt', 'these are not records\n')
      const outcome = await importFiles(store, [prose])
      assert.deepEqual(outcome.errors, [
        `${prose}:1: unknown column(s) "these are not records" in the CSV header (a file is NDJSON, one JSON object per line, or CSV of daily rows whose header names fields such as platform,account_id,date,views)`,
      ])
    })

    it('stops a file at a quoting error but still lists the errors before it', async () => {
      const { store } = testStore
      const csv = files.write('quotes.csv', 'platform,account_id,date,views\nfb,10,2026-11-01,-2\nfb,10,"2026-11-02"x,1\nfb,10,2026-11-03,1\n')
      const outcome = await importFiles(store, [csv])
      assert.equal(outcome.errors.length, 2)
      assert.equal(outcome.errors[0], `${csv}:2: views must not be negative (got -2)`)
      assert.match(outcome.errors[1] ?? '', new RegExp(`^${csv.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:3: invalid CSV: Invalid Closing Quote`))
    })

    it('accepts a kind column only when it says daily', async () => {
      const { store } = testStore
      const csv = files.write('kinds.csv', 'kind,platform,account_id,date,views\ndaily,fb,10,2026-11-01,1\nbrand,fb,10,2026-11-02,1\n')
      const outcome = await importFiles(store, [csv])
      assert.deepEqual(outcome.errors, [`${csv}:3: a CSV file holds daily rows only (got kind "brand")`])
    })
  })
}
