import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { sql } from 'kysely'
import { rebuildReadModel } from '../../src/services/analytics/read-model.js'
import { runCliCaptured } from '../helpers/cli.js'
import { openPartnerApi, type PartnerApi } from '../helpers/partner-api.js'
import { DIALECTS } from '../helpers/stores.js'
import { accountRow, brandRow, dailyRow, insertDatasetAndReadModel } from '../helpers/analytics-fixtures.js'
import { ndjson, tempFiles, type TempFiles } from '../import/import-helpers.js'

/**
 * Answers of GET /analytics/ are kept for the next identical question (docs/storage.md "Report
 * cache"), and no kept answer outlives a write: an import by another process (the CLI), a write
 * through the serving store itself. On PostgreSQL nothing is kept; the same
 * assertions hold there.
 */

const QUERIES: Array<Record<string, string>> = [
  { type: 'daily', brand_id: '1', since: '2026-03-01', until: '2026-03-07' },
  { type: 'agg', brand_id: '1', since: '2026-02-01', until: '2026-03-31' },
  { type: 'monthly', brand_id: '1,2', since: '2026-02-01', until: '2026-03-31' },
  { type: 'agg', since: '2026-03-01', until: '2026-03-31' },
]

const DATASET = {
  brands: [brandRow(1), brandRow(2)],
  accounts: [accountRow('fb', 10, 1), accountRow('tk', 20, 2)],
  daily: [
    dailyRow('fb', 10, '2026-02-14', { views: 4, followers: 110 }),
    dailyRow('fb', 10, '2026-03-03', { views: 16, followers: 120 }),
    dailyRow('tk', 20, '2026-03-02', { views: 32, followers: 5 }),
  ],
}

for (const dialect of DIALECTS) {
  describe(`kept answers never outlive a write (${dialect})`, () => {
    let api: PartnerApi
    let files: TempFiles
    before(async () => {
      files = tempFiles()
      api = await openPartnerApi(dialect, { seed: async (test) => { await insertDatasetAndReadModel(test.store, DATASET) }, brandIds: [1, 2] })
    })
    after(async () => {
      await api.close()
      files.cleanup()
    })

    async function answers (): Promise<Array<{ body: string, etag: string }>> {
      return await Promise.all(QUERIES.map(async (query) => {
        const response = await api.app.inject({ method: 'GET', url: '/analytics/', query, headers: api.auth })
        assert.equal(response.statusCode, 200, response.body)
        return { body: response.body, etag: String(response.headers.etag) }
      }))
    }

    const views = (answer: { body: string }): number[] => (JSON.parse(answer.body) as { data: Array<{ views: number }> }).data.map((entry) => entry.views)

    it('answers an identical question with the same bytes and ETag', async () => {
      const first = await answers()
      assert.deepEqual(await answers(), first)
      assert.deepEqual(views(first[0] as { body: string }), [16])
      // A conditional request for a kept answer is still a 304.
      const revalidated = await api.app.inject({ method: 'GET', url: '/analytics/', query: QUERIES[0], headers: { ...api.auth, 'if-none-match': first[0]?.etag ?? '' } })
      assert.equal(revalidated.statusCode, 304)
    })

    it('answers from the new data after an import by another process', async () => {
      const before = await answers()
      const file = files.write('views.ndjson', ndjson({ kind: 'daily', platform: 'fb', account_id: 10, date: '2026-03-03', views: 17, followers: 120 }))
      const run = await runCliCaptured(['import', file], { DATABASE_URL: api.test.databaseUrl })
      assert.equal(run.code, 0, run.stderr)
      const after = await answers()
      assert.deepEqual(views(after[0] as { body: string }), [17])
      for (let index = 0; index < QUERIES.length; index += 1) assert.notEqual(after[index]?.body, before[index]?.body, JSON.stringify(QUERIES[index]))
    })

    it('answers from the new data after a write through the serving store itself', async () => {
      await answers()
      await sql`update daily_metrics set views = 18 where platform = 'fb' and account_id = 10 and date = '2026-03-03'`.execute(api.test.store.db)
      await rebuildReadModel(api.test.store)
      assert.deepEqual(views((await answers())[0] as { body: string }), [18])
    })
  })
}
