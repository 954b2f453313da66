import type { FastifyInstance } from 'fastify'
import type { Dialect } from '../../../src/storage/db.js'
import { generateDataset, insertDatasetAndReadModel, type AnalyticsDataset } from '../../../test/helpers/analytics-fixtures.js'
import { buildTestApp, type TestAppOptions } from '../../../test/helpers/app.js'
import { createPartner, type TestPartner } from '../../../test/helpers/partners.js'
import { createTestStore, type TestStore } from '../../../test/helpers/stores.js'
import { insertPosts, postRow } from '../../../test/posts/posts-fixtures.js'

/**
 * A REAL running service for the client tests: the production app listening on a free port of
 * 127.0.0.1, on a fresh store seeded with the deterministic analytics dataset, and a partner
 * granted brands 1 and 2 (their key pair is what a partner would put in the environment).
 */

export const DATASET_START = '2026-01-01'
export const DATASET_DAYS = 40
/** Posts seeded: one a day on fb 100 (brand 1) and every other day on ig 100 (brand 2). */
export const POST_COUNT = 40 + 20

export interface RunningServer {
  baseUrl: string
  app: FastifyInstance
  testStore: TestStore
  dataset: AnalyticsDataset
  partner: TestPartner
  /** Starts another app on the same store with other settings (e.g. a low rate limit, its own wall clock). */
  startSibling: (env: Record<string, string>, options?: TestAppOptions) => Promise<{ baseUrl: string, close: () => Promise<void> }>
  close: () => Promise<void>
}

export async function startServer (dialect: Dialect, env: Record<string, string> = {}, options: TestAppOptions = {}): Promise<RunningServer> {
  const testStore = await createTestStore(dialect)
  const dataset = generateDataset({ seed: 11, start: DATASET_START, days: DATASET_DAYS })
  await insertDatasetAndReadModel(testStore.store, dataset)
  const posts = Array.from({ length: DATASET_DAYS }, (_, day) => postRow('fb', `fb-${day}`, 100, `2026-01-${String(1 + (day % 31)).padStart(2, '0')}T${String(day % 24).padStart(2, '0')}:00:00Z`, { views: day * 10 }))
  for (let day = 0; day < DATASET_DAYS; day += 2) posts.push(postRow('ig', `ig-${day}`, 100, `2026-02-${String(1 + (day % 9)).padStart(2, '0')}T12:${String(day).padStart(2, '0')}:00Z`))
  await insertPosts(testStore.store.db, posts)
  const partner = await createPartner(testStore.store, { brandIds: [1, 2] })
  const listen = async (settings: Record<string, string>, options: TestAppOptions = {}) => {
    const app = await buildTestApp(testStore.store, settings, options)
    const address = await app.listen({ host: '127.0.0.1', port: 0 })
    return { app, baseUrl: address, close: async () => { await app.close() } }
  }
  const main = await listen(env, options)
  const siblings: Array<() => Promise<void>> = []
  return {
    baseUrl: main.baseUrl,
    app: main.app,
    testStore,
    dataset,
    partner,
    startSibling: async (settings, options) => {
      const sibling = await listen(settings, options)
      siblings.push(sibling.close)
      return { baseUrl: sibling.baseUrl, close: sibling.close }
    },
    close: async () => {
      for (const close of siblings) await close()
      await main.close()
      await testStore.cleanup()
    },
  }
}

/** Records every request the client sends (method and path), passing it on to the real fetch. */
export function recordingFetch (): { fetch: typeof fetch, calls: string[] } {
  const calls: string[] = []
  return {
    calls,
    fetch: async (input, init) => {
      const url = new URL(String(input))
      calls.push(`${init?.method ?? 'GET'} ${url.pathname}`)
      return await fetch(input, init)
    },
  }
}

/** The (date, brand) groups the dataset has rows for in [since, until] among the given brands: the daily entries expected. */
export function expectedDailyGroups (dataset: AnalyticsDataset, brandIds: number[], since: string, until: string): string[] {
  const brandOf = new Map(dataset.accounts.map((account) => [`${account.platform}:${account.account_id}`, account.brand_id]))
  const groups = new Set<string>()
  for (const row of dataset.daily) {
    const brand = brandOf.get(`${row.platform}:${row.account_id}`)
    if (brand === undefined || !brandIds.includes(brand) || row.date < since || row.date > until) continue
    groups.add(`${row.date}|${brand}`)
  }
  return [...groups].sort()
}
