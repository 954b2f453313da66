import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { generateDataset, insertDatasetAndReadModel } from '../helpers/analytics-fixtures.js'
import { exportDir, getJob, postExport, waitForJob } from '../helpers/exports.js'
import { openPartnerApi, type PartnerApi } from '../helpers/partner-api.js'
import { DIALECTS } from '../helpers/stores.js'

/**
 * Export jobs give way to a busy API (docs/exports.md "Running"): while the serving process's API
 * is busy, its export processes read a chunk of rows at most once a second (pausing the store's
 * side of the read too), so a job still ends, later. The API's load is the test's here: `busy`
 * stands for the serving process's foreground load.
 */

// ~4,800 account-days in the partner's brands: three batches of 2,000 rows, each read after a
// wait of up to a second while the API is busy, so such an export cannot end within 3 s.
const dataset = generateDataset({ seed: 5, start: '2024-01-01', days: 500 })
const SAMPLE_MS = 2000
const QUIET = { info: () => {}, warn: () => {}, error: () => {} }

for (const dialect of DIALECTS) {
  describe(`exports while the API is busy (${dialect})`, () => {
    let api: PartnerApi
    let busy = false
    const dir = exportDir()
    before(async () => {
      api = await openPartnerApi(dialect, {
        brandIds: [1, 2, 4],
        seed: async (test) => { await insertDatasetAndReadModel(test.store, dataset) },
        env: { EXPORT_DIR: dir },
        exports: { pollMs: 50, foreground: { busy: () => busy } },
      })
      api.app.services.exports.worker.start(QUIET)
    })
    after(async () => { await api.close() })

    it('reads at a trickle while the API is busy and still ends, with every row', async () => {
      busy = true
      const created = await postExport(api.app, api.auth, { dataset: 'daily', format: 'csv', compression: 'none' })
      assert.equal(created.status, 202, JSON.stringify(created.body))
      const id = created.body.id
      await waitForJob(api.app, api.auth, id, ['running'])
      const seen: string[] = []
      const until = Date.now() + SAMPLE_MS
      while (Date.now() < until) {
        seen.push((await getJob(api.app, api.auth, id)).status)
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      assert.deepEqual([...new Set(seen)], ['running'], `the job while the API was busy for ${SAMPLE_MS} ms: ${[...new Set(seen)].join(', ')}`)
      // Still busy: the trickle ends the job all the same.
      const done = await waitForJob(api.app, api.auth, id, ['succeeded', 'failed', 'cancelled'], 60_000)
      assert.equal(done.status, 'succeeded', JSON.stringify(done))
      // Brands 1, 2 and 4 hold every account of the dataset.
      assert.equal(done.progress.rows_written, dataset.daily.length)
    })
  })
}
