import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import pg from 'pg'
import { addDays } from '../../src/domain/dates.js'
import { renderBrandDayEntry } from '../../src/services/analytics/entries.js'
import { openPostgresImportWriter } from '../../src/storage/repositories/import-writer.postgres.js'
import type { ImportRow } from '../../src/storage/repositories/import-writer.types.js'
import { createTestStore, TEST_POSTGRES_URL, type TestStore } from '../helpers/stores.js'

/**
 * PostgreSQL writes a daily batch with a plain INSERT when none of its accounts has a stored row
 * between its first and last day in the batch, and through the upsert otherwise
 * (src/storage/changes/capture.postgres.ts, capturingDailyWrite). The same imports into a store
 * whose writer always upserts must leave everything the same: the daily rows, the read model, the
 * coverage, the syncs and their change events. And the plain insert is not taken while another
 * import of the store is open: a row that import wrote and has not committed is then waited for
 * and updated, as the upsert always did.
 */

type Daily = Extract<ImportRow, { kind: 'daily' }>

const brand = (id: number): ImportRow => ({ kind: 'brand', brand_id: id, brand_name: `Brand ${id}` })
const account = (platform: 'fb' | 'ig', id: number, brandId: number): ImportRow =>
  ({ kind: 'account', platform, account_id: id, brand_id: brandId, account_name: `Account ${id}`, network_id: null, storage_avatar: null, permalink: null })
/** A daily row; `salt` changes its values. Unlisted metrics are null, as validation leaves them. */
const day = (platform: 'fb' | 'ig', id: number, date: string, salt = 0): ImportRow =>
  ({ kind: 'daily', platform, account_id: id, date, views: (id * 31 + date.charCodeAt(9) * 7 + salt) % 1000, followers: 100 + id, revenue_micros: salt === 0 ? 1_250_000 : 2_000_000 } as unknown as Daily)

const ACCOUNTS: Array<['fb' | 'ig', number, number]> = [['fb', 11, 1], ['fb', 12, 1], ['ig', 21, 2], ['ig', 22, 2], ['fb', 13, 2]]
const START = '2001-01-01'
/** Days per account in the first import: 5 × 5,000 = 25,000 rows, two batches (20,000 a batch). */
const FIRST_DAYS = 5000

function firstImport (): ImportRow[] {
  const rows: ImportRow[] = [brand(1), brand(2), ...ACCOUNTS.map(([platform, id, brandId]) => account(platform, id, brandId))]
  for (const [platform, id] of ACCOUNTS) {
    for (let index = 0; index < FIRST_DAYS; index += 1) {
      // Account 13 skips every seventh day: runs with gaps inside a batch.
      if (id === 13 && index % 7 === 3) continue
      rows.push(day(platform, id, addDays(START, index)))
    }
  }
  return rows
}

/** New days after the first import's, for every account. */
function newDays (from: number, count: number): ImportRow[] {
  const rows: ImportRow[] = []
  for (const [platform, id] of ACCOUNTS) for (let index = from; index < from + count; index += 1) rows.push(day(platform, id, addDays(START, index)))
  return rows
}

async function write (test: TestStore, rows: ImportRow[], plainNewDays: boolean): Promise<{ plainly: number }> {
  if (test.store.dialect !== 'postgres') throw new Error('a PostgreSQL store was expected')
  const writer = await openPostgresImportWriter(test.store.pool, new Date().toISOString().slice(0, 19) + 'Z', renderBrandDayEntry, { plainNewDays })
  for (const row of rows) await writer.add(row)
  await writer.commit({ sourceFiles: ['rows.ndjson'], read: { brand: 0, account: 0, daily: rows.length, post: 0 } })
  return { plainly: writer.dailyRowsInsertedPlainly() }
}

/** Everything an import leaves behind that does not depend on when it ran. */
async function stored (test: TestStore): Promise<Record<string, unknown[]>> {
  const read = async (text: string): Promise<unknown[]> => (await test.store.db.executeQuery({ sql: text, parameters: [], query: { kind: 'RawNode' } } as never)).rows
  return {
    daily: await read('select * from daily_metrics order by platform, account_id, date'),
    brandDaily: await read('select * from brand_daily order by brand_id, date'),
    brandMonthly: await read('select * from brand_monthly order by brand_id, month'),
    accountMonthly: await read('select * from account_monthly order by platform, account_id, month'),
    coverage: await read('select platform, account_id, first_date, last_date, sync_id from account_coverage order by platform, account_id'),
    syncs: await read('select sync_id, counts, brand_ids, accounts, first_event_id, event_count from syncs order by sync_id'),
    events: await read('select event_id, type, brand_id, sync_id, data from change_events order by event_id'),
  }
}

describe('daily rows inserted plainly when nothing can conflict (postgres)', () => {
  let plain: TestStore
  let upsert: TestStore

  before(async () => {
    plain = await createTestStore('postgres')
    upsert = await createTestStore('postgres')
  })
  after(async () => {
    await plain.cleanup()
    await upsert.cleanup()
  })

  it('leaves the same rows, read model, coverage, syncs and events as the upsert, import after import', async () => {
    const changed: ImportRow[] = [
      ...newDays(FIRST_DAYS, 10),
      // Days already stored: ten changed, ten identical.
      ...Array.from({ length: 10 }, (_, index) => day('fb', 11, addDays(START, 100 + index), 5)),
      ...Array.from({ length: 10 }, (_, index) => day('ig', 21, addDays(START, 200 + index))),
    ]
    const imports: Array<{ rows: ImportRow[], plainly: number }> = [
      { rows: firstImport(), plainly: firstImport().filter((row) => row.kind === 'daily').length },
      // New days mixed with stored ones in one batch: the batch goes through the upsert.
      { rows: changed, plainly: 0 },
      // New days only.
      { rows: newDays(FIRST_DAYS + 10, 30), plainly: ACCOUNTS.length * 30 },
      // The same again: every row stored and equal, nothing written.
      { rows: newDays(FIRST_DAYS + 10, 30), plainly: 0 },
    ]
    for (const [index, { rows, plainly }] of imports.entries()) {
      const viaPlain = await write(plain, rows, true)
      const viaUpsert = await write(upsert, rows, false)
      assert.equal(viaPlain.plainly, plainly, `import ${index + 1}: ${plainly} daily rows inserted plainly expected, saw ${viaPlain.plainly}`)
      assert.equal(viaUpsert.plainly, 0, `import ${index + 1}: the upsert-only writer inserted ${viaUpsert.plainly} rows plainly`)
      const [left, right] = [await stored(plain), await stored(upsert)]
      for (const table of Object.keys(left)) {
        assert.deepEqual(left[table], right[table], `import ${index + 1}: ${table} differs between the plain insert and the upsert`)
      }
    }
    const counts = ((await stored(plain)).syncs ?? []).map((row) => (row as { counts: string }).counts)
    assert.deepEqual(counts.map((text) => (JSON.parse(text) as { changed: { daily: unknown } }).changed.daily), [
      { inserted: 24_286, changed: 0 },
      { inserted: 50, changed: 10 },
      { inserted: 150, changed: 0 },
      { inserted: 0, changed: 0 },
    ], 'each sync counts the daily rows it inserted and changed')
  })

  it('keeps to the upsert while another import is open, and updates the row that import wrote once it commits', async () => {
    if (plain.store.dialect !== 'postgres') throw new Error('a PostgreSQL store was expected')
    const date = addDays(START, FIRST_DAYS + 100)
    // The other import writes a batch holding a new day of account fb:11 and stays open: two full
    // batches, as the second is sent only once the first is written.
    const other = await openPostgresImportWriter(plain.store.pool, '2026-01-01T00:00:00Z', renderBrandDayEntry)
    const batch: ImportRow[] = [day('fb', 11, date, 1)]
    for (let index = 0; batch.length < 40_000; index += 1) batch.push(day('fb', 12, addDays(START, FIRST_DAYS + 200 + index)))
    for (const row of batch) await other.add(row)
    let written = false
    const importing = write(plain, [day('fb', 11, date, 2), day('fb', 13, addDays(START, FIRST_DAYS + 100))], true).then((outcome) => { written = true; return outcome })
    // The import waits for the other one's row of that day; it cannot finish before the other commits.
    const client = new pg.Client({ connectionString: TEST_POSTGRES_URL })
    await client.connect()
    try {
      const deadline = Date.now() + 30_000
      for (;;) {
        const { rows } = await client.query<{ n: number }>("select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database() and query like '%insert into daily_metrics%'")
        if ((rows[0]?.n ?? 0) > 0) break
        assert.ok(!written && Date.now() < deadline, `the import was expected to wait for the open import's row; written=${String(written)}`)
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
    } finally {
      await client.end()
    }
    await other.commit({ sourceFiles: ['other.ndjson'], read: { brand: 0, account: 0, daily: batch.length, post: 0 } })
    const outcome = await importing
    assert.equal(outcome.plainly, 0, `no row may be inserted plainly while another import is open; saw ${outcome.plainly}`)
    const { rows } = await plain.store.pool.query<{ views: number, revenue_micros: number }>('select views, revenue_micros from daily_metrics where platform = $1 and account_id = $2 and date = $3', ['fb', 11, date])
    assert.deepEqual(rows, [{ views: (11 * 31 + date.charCodeAt(9) * 7 + 2) % 1000, revenue_micros: 2_000_000 }], 'the later import updated the row the other one wrote')
  })

  it('inserts plainly again after an import that did so was rolled back, and keeps none of its rows', async () => {
    if (plain.store.dialect !== 'postgres') throw new Error('a PostgreSQL store was expected')
    // Far after every day the tests above wrote: 5 × 4,001 rows, a first batch of 20,000 in flight.
    const from = FIRST_DAYS + 60_000
    const rows = newDays(from, 4001)
    const abandoned = await openPostgresImportWriter(plain.store.pool, '2026-01-01T00:00:00Z', renderBrandDayEntry)
    for (const row of rows) await abandoned.add(row)
    // The rollback waits for the batch in flight first.
    await abandoned.rollback()
    assert.equal(abandoned.dailyRowsInsertedPlainly(), 20_000, 'the abandoned import wrote its first batch plainly')
    const { plainly } = await write(plain, rows, true)
    assert.equal(plainly, rows.length, `the next import inserts all its ${rows.length} new days plainly; saw ${plainly}`)
    const { rows: counted } = await plain.store.pool.query<{ n: number }>('select count(*)::int as n from daily_metrics where date >= $1', [addDays(START, from)])
    assert.equal(counted[0]?.n, rows.length, 'each new day is stored once')
  })
})
