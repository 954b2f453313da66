import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { sql } from 'kysely'
import { addDays } from '../../src/domain/dates.js'
import { createTestStore, type TestStore } from '../helpers/stores.js'
import { importFiles, ndjson, tempFiles, type TempFiles } from './import-helpers.js'

/**
 * PostgreSQL: an import that writes a tenth or more of the daily table's rows takes the planner's
 * statistics of the tables reports plan on (ANALYZE, as autovacuum would later); a smaller one
 * leaves them for autovacuum. Read from pg_class.reltuples, which only ANALYZE (or VACUUM) sets:
 * -1 on a table never analysed, the row count after an ANALYZE of a small table.
 */

const days = (from: string, count: number, accountId: number): object[] =>
  Array.from({ length: count }, (_, i) => ({ kind: 'daily', platform: 'facebook', account_id: accountId, date: addDays(from, i), views: 10 + i, followers: 100 }))

describe('planner statistics after an import (postgres)', () => {
  let test: TestStore
  let files: TempFiles

  before(async () => {
    test = await createTestStore('postgres')
    files = tempFiles()
  })
  after(async () => {
    files.cleanup()
    await test.cleanup()
  })

  const counted = async (table: string): Promise<number> => {
    const { rows } = await sql<{ reltuples: number }>`select reltuples from pg_class where oid = ${table}::regclass`.execute(test.store.db)
    return Number(rows[0]?.reltuples)
  }
  const importRecords = async (name: string, records: object[]): Promise<void> => {
    const outcome = await importFiles(test.store, [files.write(name, ndjson(...records))])
    assert.deepEqual(outcome.errors, [], 'the import is accepted')
  }

  it('analyses after the first import and after one that writes a tenth or more, not after a small one', async () => {
    assert.equal(await counted('daily_metrics'), -1, 'a fresh table was never analysed')
    await importRecords('first.ndjson', [
      { kind: 'brand', brand_id: 1, brand_name: 'Acme' },
      { kind: 'account', account_id: 10, brand_id: 1, platform: 'facebook', account_name: 'Acme FB' },
      ...days('2026-01-01', 40, 10),
    ])
    assert.equal(await counted('daily_metrics'), 40, 'the first import analysed the daily table')
    for (const table of ['brand_daily', 'brand_monthly', 'account_monthly', 'account_coverage']) {
      assert.ok(await counted(table) >= 1, `the first import analysed ${table}`)
    }

    // 3 rows against 40 counted: under a tenth, left to autovacuum.
    await importRecords('small.ndjson', days('2026-02-10', 3, 10))
    assert.equal(await counted('daily_metrics'), 40, 'a small import leaves the statistics as they were')

    // 10 rows against 40 counted: a quarter, analysed again (43 + 10 rows now).
    await importRecords('backfill.ndjson', days('2025-12-01', 10, 10))
    assert.equal(await counted('daily_metrics'), 53, 'a backfill of a tenth or more analysed again')
  })
})
