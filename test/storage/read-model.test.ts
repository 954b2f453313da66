import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { ENGAGEMENT_DENOMINATOR, SUMMED_METRICS } from '../../src/domain/metrics.js'
import type { PlatformCode } from '../../src/domain/platforms.js'
import { importSources } from '../../src/services/import/import.service.js'
import type { NewDailyMetricsRow } from '../../src/storage/database.js'
import type { Store } from '../../src/storage/db.js'
import { rebuildReadModel } from '../../src/services/analytics/read-model.js'
import { generateDataset, type AnalyticsDataset } from '../helpers/analytics-fixtures.js'
import { DIALECTS, createTestStore, type TestStore } from '../helpers/stores.js'
import { memorySource } from '../posts/posts-fixtures.js'

/**
 * The read model (brand_daily, brand_monthly, account_monthly) equals what the raw rows say, summed
 * here independently in plain loops: after a first import, after a second one that rewrites rows
 * (values and nulls), moves an account to another brand and adds months, and after a rebuild.
 */

type Sums = Record<string, number | null>
const FLOWS = [...SUMMED_METRICS]

function add (sums: Sums, name: string, value: number | null | undefined): void {
  if (value === null || value === undefined) return
  sums[name] = (sums[name] ?? 0) + value
}

function emptySums (): Sums {
  return Object.fromEntries(['revenue_micros', 'followers', 'engagement_denominator', ...FLOWS].map((name) => [name, null]))
}

interface Expected { accountMonthly: string[], brandDaily: string[], brandMonthly: string[] }

/** The three tables as the contract defines them, from the raw account-days and the accounts' brands. */
function expectedReadModel (daily: NewDailyMetricsRow[], brandOf: Map<string, number>): Expected {
  const am = new Map<string, Sums & { rows_count: number, followers_date: string | null }>()
  const bd = new Map<string, Sums & { rows_count: number }>()
  for (const row of daily) {
    const month = `${row.date.slice(0, 7)}-01`
    const amKey = `${row.platform}|${row.account_id}|${month}`
    const entry = am.get(amKey) ?? { ...emptySums(), rows_count: 0, followers_date: null }
    entry.rows_count += 1
    add(entry, 'revenue_micros', row.revenue_micros)
    for (const flow of FLOWS) add(entry, flow, row[flow])
    add(entry, 'engagement_denominator', ENGAGEMENT_DENOMINATOR[row.platform as PlatformCode] === 'reach' ? row.reach : row.views)
    if (row.followers !== null && row.followers !== undefined && (entry.followers_date === null || row.date > entry.followers_date)) {
      entry.followers_date = row.date
      entry.followers = row.followers
    }
    am.set(amKey, entry)

    const brand = brandOf.get(`${row.platform}:${row.account_id}`)
    const bdKey = `${brand}|${row.date}`
    const day = bd.get(bdKey) ?? { ...emptySums(), rows_count: 0 }
    day.rows_count += 1
    add(day, 'revenue_micros', row.revenue_micros)
    add(day, 'followers', row.followers)
    for (const flow of FLOWS) add(day, flow, row[flow])
    add(day, 'engagement_denominator', ENGAGEMENT_DENOMINATOR[row.platform as PlatformCode] === 'reach' ? row.reach : row.views)
    bd.set(bdKey, day)
  }
  const bm = new Map<string, Sums & { rows_count: number }>()
  for (const [key, day] of bd) {
    const [brand, date] = key.split('|') as [string, string]
    const bmKey = `${brand}|${date.slice(0, 7)}-01`
    const month = bm.get(bmKey) ?? { ...emptySums(), rows_count: 0 }
    month.rows_count += day.rows_count
    for (const name of ['revenue_micros', 'engagement_denominator', ...FLOWS]) add(month, name, day[name])
    bm.set(bmKey, month)
  }
  for (const [key, month] of am) {
    const [platform, accountId, monthStart] = key.split('|') as [string, string, string]
    const target = bm.get(`${brandOf.get(`${platform}:${accountId}`)}|${monthStart}`)
    if (target !== undefined) add(target, 'followers', month.followers)
  }
  const lines = <T extends object>(map: Map<string, T>): string[] => [...map].map(([key, value]) => `${key} ${JSON.stringify(value, Object.keys(value).sort())}`).sort()
  return { accountMonthly: lines(am), brandDaily: lines(bd), brandMonthly: lines(bm) }
}

async function storedReadModel (store: Store): Promise<Expected> {
  const columns = ['rows_count', 'revenue_micros', 'followers', 'engagement_denominator', ...FLOWS]
  const line = (key: string, row: Record<string, unknown>, extra: string[] = []): string => {
    const value = Object.fromEntries([...columns, ...extra].map((name) => [name, row[name] === null ? null : (name === 'followers_date' ? String(row[name]) : Number(row[name]))]))
    return `${key} ${JSON.stringify(value, Object.keys(value).sort())}`
  }
  const month = (value: unknown): string => String(value).slice(0, 10)
  const am = await store.db.selectFrom('account_monthly' as never).selectAll().execute() as Array<Record<string, unknown>>
  const bd = await store.db.selectFrom('brand_daily' as never).selectAll().execute() as Array<Record<string, unknown>>
  const bm = await store.db.selectFrom('brand_monthly' as never).selectAll().execute() as Array<Record<string, unknown>>
  return {
    accountMonthly: am.map((row) => line(`${String(row.platform)}|${Number(row.account_id)}|${month(row.month)}`, row, ['followers_date'])).sort(),
    brandDaily: bd.map((row) => line(`${Number(row.brand_id)}|${month(row.date)}`, row)).sort(),
    brandMonthly: bm.map((row) => line(`${Number(row.brand_id)}|${month(row.month)}`, row)).sort(),
  }
}

/** Import records of a dataset (revenue back in currency units: micros are multiples of 5 000). */
function records (dataset: Pick<AnalyticsDataset, 'brands' | 'accounts' | 'daily'>): unknown[] {
  return [
    ...dataset.brands.map((brand) => ({ kind: 'brand', brand_id: brand.brand_id, brand_name: brand.brand_name })),
    ...dataset.accounts.map((account) => ({ kind: 'account', platform: account.platform, account_id: account.account_id, brand_id: account.brand_id, account_name: account.account_name })),
    ...dataset.daily.map(({ revenue_micros: micros, ...row }) => ({
      kind: 'daily',
      ...Object.fromEntries(Object.entries(row).filter(([, value]) => value !== null)),
      ...(micros === null || micros === undefined ? {} : { revenue: micros / 1_000_000 }),
    })),
  ]
}

for (const dialect of DIALECTS) {
  describe(`read model (${dialect})`, () => {
    let test: TestStore
    const dataset = generateDataset({ seed: 11, start: '2026-01-20', days: 75 })
    const brandOf = new Map(dataset.accounts.map((account) => [`${account.platform}:${account.account_id}`, Number(account.brand_id)]))
    const rows = new Map(dataset.daily.map((row) => [`${row.platform}|${row.account_id}|${row.date}`, row]))

    before(async () => { test = await createTestStore(dialect) })
    after(async () => { await test.cleanup() })

    it('equals the raw rows summed, after an import', async () => {
      await importSources(test.store, [memorySource(records(dataset))])
      assert.deepEqual(await storedReadModel(test.store), expectedReadModel([...rows.values()], brandOf))
    })

    it('stays equal after an import that rewrites rows (values and nulls) and adds months', async () => {
      const rewritten = dataset.daily.filter((_, index) => index % 9 === 0).map((row, index) => ({
        ...row,
        views: index % 2 === 0 ? null : (row.views ?? 0) + 7,
        followers: index % 3 === 0 ? null : (row.followers ?? 0) + 1,
        revenue_micros: row.revenue_micros === null || row.revenue_micros === undefined ? null : row.revenue_micros + 10_000,
      }))
      const later = dataset.daily.filter((row) => row.platform === 'ig' && row.account_id === 101).slice(0, 20)
        .map((row, index) => ({ ...row, date: `2026-0${6 + Math.floor(index / 10)}-${String(10 + (index % 10)).padStart(2, '0')}` }))
      await importSources(test.store, [memorySource(records({ brands: [], accounts: [], daily: [...rewritten, ...later] }))])
      for (const row of [...rewritten, ...later]) rows.set(`${row.platform}|${row.account_id}|${row.date}`, row)
      assert.deepEqual(await storedReadModel(test.store), expectedReadModel([...rows.values()], brandOf))
    })

    it('moves every month of an account that changes brands, from the brand it left to the one it joined', async () => {
      const moved = dataset.accounts.find((account) => account.platform === 'fb' && account.account_id === 204)
      assert.ok(moved !== undefined && moved.brand_id === 2)
      // Only the account record: none of its rows is written again, yet both brands change.
      await importSources(test.store, [memorySource(records({ brands: [], accounts: [{ ...moved, brand_id: 1 }], daily: [] }))])
      brandOf.set('fb:204', 1)
      assert.deepEqual(await storedReadModel(test.store), expectedReadModel([...rows.values()], brandOf))
    })

    it('is summed the same by a full rebuild', async () => {
      await rebuildReadModel(test.store)
      assert.deepEqual(await storedReadModel(test.store), expectedReadModel([...rows.values()], brandOf))
    })
  })
}
