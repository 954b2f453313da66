import type { Kysely } from 'kysely'
import { CORE_COUNT_METRICS, PLATFORM_METRIC_NAMES, metricAppliesTo } from '../../src/domain/metrics.js'
import type { PlatformCode } from '../../src/domain/platforms.js'
import type { Database, NewAccountRow, NewBrandRow, NewDailyMetricsRow } from '../../src/storage/database.js'
import type { Store } from '../../src/storage/db.js'
import { rebuildReadModel } from '../../src/services/analytics/read-model.js'
import { addDays } from '../../src/domain/dates.js'

/**
 * Analytics fixtures written straight into the tables (no import service): brands, accounts and
 * account-days, plus a deterministic generated dataset with gaps, nulls, several platforms, one
 * account_id used on two platforms and revenue on some accounts only.
 */

export interface AnalyticsDataset {
  brands: NewBrandRow[]
  accounts: NewAccountRow[]
  daily: NewDailyMetricsRow[]
}

const UPDATED_AT = '2026-01-01T00:00:00Z'

export function brandRow (brandId: number, brandName = `Brand ${brandId}`): NewBrandRow {
  return { brand_id: brandId, brand_name: brandName, updated_at: UPDATED_AT }
}

export function accountRow (platform: PlatformCode, accountId: number, brandId: number, extra: Partial<NewAccountRow> = {}): NewAccountRow {
  return {
    platform,
    account_id: accountId,
    brand_id: brandId,
    account_name: `${platform} account ${accountId}`,
    network_id: `net-${platform}-${accountId}`,
    storage_avatar: `https://cdn.example.com/avatars/${platform}/${accountId}.png`,
    permalink: `https://example.com/${platform}/${accountId}`,
    updated_at: UPDATED_AT,
    ...extra,
  }
}

/** An account-day with every metric null (not reported) except those given. */
export function dailyRow (platform: PlatformCode, accountId: number, date: string, metrics: Partial<NewDailyMetricsRow> = {}): NewDailyMetricsRow {
  const row: NewDailyMetricsRow = { platform, account_id: accountId, date, revenue_micros: null }
  for (const metric of [...CORE_COUNT_METRICS, ...PLATFORM_METRIC_NAMES]) row[metric] = null
  return { ...row, ...metrics }
}

export async function insertDataset (db: Kysely<Database>, dataset: AnalyticsDataset): Promise<void> {
  if (dataset.brands.length > 0) await db.insertInto('brands').values(dataset.brands).execute()
  if (dataset.accounts.length > 0) await db.insertInto('accounts').values(dataset.accounts).execute()
  // Chunks keep every statement under both drivers' bound-parameter limits.
  for (let start = 0; start < dataset.daily.length; start += 200) {
    await db.insertInto('daily_metrics').values(dataset.daily.slice(start, start + 200)).execute()
  }
}

/** Inserts the dataset and sums the read model from it, as an import would have (reports read both). */
export async function insertDatasetAndReadModel (store: Store, dataset: AnalyticsDataset): Promise<void> {
  await insertDataset(store.db, dataset)
  await rebuildReadModel(store)
}

/** mulberry32: a tiny deterministic PRNG, so a seed always gives the same dataset. */
export function seededRandom (seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6D2B79F5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

export interface GeneratedDatasetOptions {
  seed: number
  /** First day with data. */
  start: string
  days: number
}

/**
 * Four brands; brand 3 has no accounts at all; brand 4 has one (fb 400), for access tests. Account 100 exists on fb (brand 1) and on ig
 * (brand 2): ids are unique per platform only. Revenue only on fb/yt accounts, with half-cent
 * micro values so rounding is exercised. About 20 % of account-days are missing (gaps) and
 * about 15 % of reported metrics are null.
 */
export function generateDataset (options: GeneratedDatasetOptions): AnalyticsDataset {
  const random = seededRandom(options.seed)
  const int = (max: number): number => Math.floor(random() * (max + 1))
  const brands = [brandRow(1, 'Acme'), brandRow(2, 'Globex'), brandRow(3, 'Initech'), brandRow(4, 'Umbrella')]
  const accounts = [
    accountRow('fb', 100, 1), accountRow('ig', 101, 1), accountRow('tk', 102, 1), accountRow('yt', 103, 1),
    accountRow('ig', 100, 2), accountRow('li', 201, 2), accountRow('sc', 202, 2), accountRow('pi', 203, 2),
    accountRow('fb', 204, 2), accountRow('da', 205, 2, { network_id: null, storage_avatar: null, permalink: null }),
    accountRow('th', 206, 1), accountRow('fb', 400, 4),
  ]
  const revenueAccounts = new Set(['fb:100', 'yt:103'])
  const daily: NewDailyMetricsRow[] = []
  for (const account of accounts) {
    let followers = 1000 + int(5000)
    for (let day = 0; day < options.days; day++) {
      if (random() < 0.2) continue
      const date = addDays(options.start, day)
      const maybe = (value: number): number | null => random() < 0.15 ? null : value
      followers += int(40) - 10
      const row = dailyRow(account.platform, account.account_id, date, {
        views: maybe(int(10_000)),
        followers: maybe(followers),
        new_followers: maybe(int(40)),
        posts_count: maybe(int(5)),
        interactions: maybe(int(900)),
        // Multiples of 5000 micros land on half-cents: exact rounding is tested, not float luck.
        revenue_micros: revenueAccounts.has(`${account.platform}:${account.account_id}`) ? maybe(int(4000) * 5000) : null,
      })
      for (const metric of PLATFORM_METRIC_NAMES) {
        if (metricAppliesTo(metric, account.platform)) row[metric] = maybe(int(metric === 'reach' ? 20_000 : 3000))
      }
      daily.push(row)
    }
  }
  return { brands, accounts, daily }
}

/**
 * The small dataset of docs/analytics.md's worked examples (period 2026-03-30 … 2026-04-02):
 * brand 1 Acme (fb 10, ig 11), brand 2 Globex (ig 10 — the same id as fb 10 —, tk 20), brand 3
 * Initech (fb 30). Every number in the docs is computed by hand from these rows.
 */
export function workedExampleDataset (): AnalyticsDataset {
  return {
    brands: [brandRow(1, 'Acme'), brandRow(2, 'Globex'), brandRow(3, 'Initech')],
    accounts: [
      accountRow('fb', 10, 1, { account_name: 'Acme FR' }),
      accountRow('ig', 11, 1, { account_name: 'Acme IG' }),
      accountRow('ig', 10, 2, { account_name: 'Globex IG' }),
      accountRow('tk', 20, 2, { account_name: 'Globex TikTok' }),
      accountRow('fb', 30, 3),
    ],
    daily: [
      dailyRow('fb', 10, '2026-03-30', { views: 1000, reach: 800, interactions: 40, followers: 5000, new_followers: 10, posts_count: 2, revenue_micros: 1_234_567, likes: 30 }),
      dailyRow('fb', 10, '2026-03-31', { views: 1200, reach: 900, interactions: 45, followers: 5010, new_followers: 10, posts_count: 1, revenue_micros: 1_005_000, likes: 35 }),
      dailyRow('fb', 10, '2026-04-01', { views: 900, interactions: 30, new_followers: 5, posts_count: 0, likes: 20 }),
      dailyRow('fb', 10, '2026-04-02', { views: 1100, reach: 1000, interactions: 50, followers: 5030, new_followers: 8, posts_count: 3, revenue_micros: 2_000_000, likes: 40 }),
      dailyRow('ig', 11, '2026-03-31', { views: 500, reach: 400, interactions: 20, followers: 800, posts_count: 1 }),
      dailyRow('ig', 11, '2026-04-02', { views: 600, reach: 450, interactions: 25, followers: 810, posts_count: 2 }),
      dailyRow('ig', 10, '2026-04-01', { views: 300, reach: 250, interactions: 10, followers: 300, posts_count: 1 }),
      dailyRow('tk', 20, '2026-03-30', { views: 2000, interactions: 100, followers: 7000, posts_count: 1 }),
      dailyRow('tk', 20, '2026-04-02', { views: 2500, interactions: 120, posts_count: 2 }),
      dailyRow('fb', 30, '2026-04-01', { views: 99, reach: 99, interactions: 9, followers: 9, posts_count: 9 }),
    ],
  }
}
