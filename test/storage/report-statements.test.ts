import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createStore, type Dialect, type Store } from '../../src/storage/db.js'
import { SERVING_DEADLINES } from '../../src/storage/deadlines.js'
import { buildAggQuery } from '../../src/storage/queries/analytics-agg.query.js'
import { buildDailyQuery } from '../../src/storage/queries/analytics-daily.query.js'
import { buildMonthlyQuery } from '../../src/storage/queries/analytics-monthly.query.js'
import { aggStatement, dailyPageStatement, monthlyStatement, periodValues, splitPeriod, type Statement } from '../../src/storage/queries/brand-reports.query.js'
import { createStatementRunner } from '../../src/storage/prepared.js'
import { accountRow, brandRow, dailyRow, insertDatasetAndReadModel } from '../helpers/analytics-fixtures.js'
import { createTestStore, DIALECTS, TEST_POSTGRES_URL, type TestStore } from '../helpers/stores.js'

/**
 * The report statements as each dialect receives them: the SQL text's placeholders and the few
 * spellings the dialects differ in, the parameters in the order they are bound, and each one run
 * against a small store whose sums are written out by hand. (The oracle tests compare whole
 * reports; these pin the statements themselves, so a dialect branch that drifts fails here first.)
 */

const PERIOD = { since: '2026-01-30', until: '2026-03-02' }

/** Brand 1: fb 10 and ig 11; brand 2: tk 20. Views per day are written out below. */
const DATASET = {
  brands: [brandRow(1), brandRow(2)],
  accounts: [accountRow('fb', 10, 1), accountRow('ig', 11, 1), accountRow('tk', 20, 2)],
  daily: [
    dailyRow('fb', 10, '2026-01-29', { views: 1000, followers: 90 }), // before the period
    dailyRow('fb', 10, '2026-01-30', { views: 1, followers: 100 }),
    dailyRow('ig', 11, '2026-01-31', { views: 2, followers: 200 }),
    dailyRow('fb', 10, '2026-02-14', { views: 4, followers: 110 }),
    dailyRow('ig', 11, '2026-02-28', { views: 8, followers: null }),
    dailyRow('fb', 10, '2026-03-01', { views: 16, followers: 120 }),
    dailyRow('tk', 20, '2026-03-02', { views: 32, followers: 5 }),
    dailyRow('tk', 20, '2026-03-03', { views: 2000, followers: 6 }), // after the period
  ],
}

const STATEMENT_SPELLINGS: Record<Dialect, { placeholder: RegExp, brands: string, absent: string[] }> = {
  sqlite: { placeholder: /@[a-z_0-9]+/g, brands: 'json_each(@brands)', absent: ['$1', '::', 'unnest('] },
  postgres: { placeholder: /\$\d+::[a-z[\]]+/g, brands: 'unnest($', absent: ['@', 'json_each', 'indexed by'] },
}

describe('splitPeriod: whole months from the monthly rollup, the edges day by day', () => {
  it('splits a period into head days, whole months and tail days', () => {
    assert.deepEqual(splitPeriod(PERIOD), {
      months: { from: '2026-02-01', to: '2026-02-01' },
      head: { from: '2026-01-30', to: '2026-01-31' },
      tail: { from: '2026-03-01', to: '2026-03-02' },
    })
    assert.deepEqual(splitPeriod({ since: '2026-02-01', until: '2026-03-31' }), {
      months: { from: '2026-02-01', to: '2026-03-01' },
      head: { from: '9999-12-31', to: '1000-01-01' },
      tail: { from: '9999-12-31', to: '1000-01-01' },
    })
    assert.deepEqual(splitPeriod({ since: '2026-02-03', until: '2026-02-20' }), {
      months: { from: '9999-12-31', to: '1000-01-01' },
      head: { from: '2026-02-03', to: '2026-02-20' },
      tail: { from: '9999-12-31', to: '1000-01-01' },
    })
  })
})

for (const dialect of DIALECTS) {
  describe(`report statements (${dialect})`, () => {
    let test: TestStore
    let store: Store
    before(async () => {
      test = await createTestStore(dialect)
      store = test.store
      await insertDatasetAndReadModel(store, DATASET)
    })
    after(async () => { await test.cleanup() })

    const spelling = STATEMENT_SPELLINGS[dialect]
    const statements: Statement[] = [
      aggStatement(dialect),
      aggStatement(dialect, 'one'),
      monthlyStatement(dialect),
      ...(['one', 'few', 'many'] as const).flatMap((count) => [false, true].flatMap((continued) =>
        (['rendered', 'sums'] as const).map((columns) => dailyPageStatement(dialect, count, continued, columns)))),
    ]

    it('writes every placeholder in the dialect\'s spelling, one per named parameter', () => {
      for (const statement of statements) {
        const placeholders = new Set(statement.text.match(spelling.placeholder))
        assert.equal(placeholders.size, statement.parameters.length, statement.name)
        for (const absent of spelling.absent) assert.ok(!statement.text.includes(absent), `${statement.name} contains ${absent}`)
      }
      assert.equal(new Set(statements.map((statement) => statement.name)).size, statements.length, 'names are unique (PostgreSQL prepares by name)')
      assert.ok(aggStatement(dialect).text.includes(spelling.brands))
      assert.deepEqual(aggStatement(dialect).parameters, ['m1', 'm2', 'h1', 'h2', 't1', 't2', 'brands'])
      assert.deepEqual(aggStatement(dialect, 'one').parameters, ['m1', 'm2', 'h1', 'h2', 't1', 't2', 'brand'])
      assert.deepEqual(dailyPageStatement(dialect, 'few', true, 'rendered').parameters, ['brands', 'since', 'until', 'after_date', 'after_brand'])
      assert.deepEqual(dailyPageStatement(dialect, 'one', false, 'rendered').parameters, ['brand', 'since', 'until'])
    })

    it('sums the agg of each brand from the whole month and the edge days, followers from the last report', async () => {
      const rows = await createStatementRunner(store).rows(aggStatement(dialect), periodValues([1, 2], PERIOD))
      // bucket, group_id, platform_rank, rows_count, revenue_micros, followers, engagement_denominator, views, …
      const summary = rows.map((row) => ({ brand: Number(row[1]), rows: Number(row[3]), followers: Number(row[5]), views: Number(row[7]) }))
      assert.deepEqual(summary, [
        // fb 10: last followers 120 (03-01); ig 11: 200 (01-31; 02-28 reported none).
        { brand: 1, rows: 5, followers: 320, views: 1 + 2 + 4 + 8 + 16 },
        { brand: 2, rows: 1, followers: 5, views: 32 },
      ])
    })

    it('sums the monthly report per brand and month, newest month first', async () => {
      const rows = await createStatementRunner(store).rows(monthlyStatement(dialect), periodValues([1, 2], PERIOD))
      assert.deepEqual(rows.map((row) => [row[0], Number(row[1]), Number(row[7])]), [
        ['2026-03', 1, 16], ['2026-03', 2, 32], ['2026-02', 1, 12], ['2026-01', 1, 3],
      ])
    })

    it('pages brand-days newest first and continues after a position', async () => {
      const runner = createStatementRunner(store)
      const first = await runner.rows(dailyPageStatement(dialect, 'few', false, 'sums'), { brands: [1, 2], ...PERIOD })
      assert.deepEqual(first.map((row) => [row[0], Number(row[1]), Number(row[7])]).slice(0, 3), [['2026-03-02', 2, 32], ['2026-03-01', 1, 16], ['2026-02-28', 1, 8]])
      const next = await runner.rows(dailyPageStatement(dialect, 'many', true, 'sums'), { brands: [1, 2], ...PERIOD, after_date: '2026-03-01', after_brand: 1 })
      assert.deepEqual(next.map((row) => row[0]), ['2026-02-28', '2026-02-14', '2026-01-31', '2026-01-30'])
      const one = await runner.rows(dailyPageStatement(dialect, 'one', false, 'rendered'), { brand: 2, ...PERIOD })
      assert.deepEqual(one.map((row) => [row[0], Number(row[1])]), [['2026-03-02', 2]])
      assert.equal(typeof one[0]?.[2], 'string')
    })

    if (dialect === 'postgres') {
      it('plans prepared statements once per connection when serving (plan_cache_mode = force_generic_plan), not for the CLI', async () => {
        assert.equal(store.dialect, 'postgres')
        const cli = await store.pool.query<{ plan_cache_mode: string }>('show plan_cache_mode')
        assert.equal(cli.rows[0]?.plan_cache_mode, 'auto')
        const serving = createStore({ kind: 'postgres', url: TEST_POSTGRES_URL, schema: test.schema }, { deadlines: SERVING_DEADLINES })
        try {
          assert.equal(serving.dialect, 'postgres')
          const { rows } = await serving.pool.query<{ plan_cache_mode: string }>('show plan_cache_mode')
          assert.equal(rows[0]?.plan_cache_mode, 'force_generic_plan')
        } finally {
          await serving.destroy()
        }
      })

      it('keeps the options a DATABASE_URL carries (its search_path) beside its own', async () => {
        const url = new URL(test.databaseUrl)
        assert.ok(url.searchParams.get('options')?.includes('search_path'))
        const other = createStore({ kind: 'postgres', url: test.databaseUrl }, { deadlines: SERVING_DEADLINES })
        try {
          assert.equal(other.dialect, 'postgres')
          const { rows } = await other.pool.query<{ search_path: string, plan_cache_mode: string }>("select current_setting('search_path') as search_path, current_setting('plan_cache_mode') as plan_cache_mode")
          assert.deepEqual(rows[0], { search_path: test.schema, plan_cache_mode: 'force_generic_plan' })
        } finally {
          await other.destroy()
        }
      })
    }

    it('compiles the grouped account queries with the dialect\'s month and placeholders', () => {
      const input = { dialect, period: PERIOD, scope: { kind: 'brands' as const, brandIds: [1, 2], platforms: ['fb' as const], singleBrandId: undefined } }
      const compiled = [
        buildDailyQuery(store.db, { ...input, grouping: { by: 'brand', byPlatform: true }, after: undefined }).compile(),
        buildMonthlyQuery(store.db, { ...input, grouping: { by: 'brand', byPlatform: true } }).compile(),
        buildAggQuery(store.db, { ...input, grouping: { by: 'none', byPlatform: true } }).compile(),
      ]
      for (const query of compiled) {
        if (dialect === 'postgres') {
          assert.match(query.sql, /\$1\b/)
          assert.ok(!query.sql.includes('?'), query.sql)
        } else {
          assert.ok(query.sql.includes('?'))
          assert.ok(!/\$\d/.test(query.sql), query.sql)
        }
      }
      const monthly = compiled[1]?.sql ?? ''
      assert.ok(dialect === 'postgres' ? monthly.includes('to_char(') : monthly.includes('substr('), monthly)
    })
  })
}
