import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { claimExportJob } from '../../src/storage/exports/export-jobs.repository.js'
import { generateDataset, insertDatasetAndReadModel } from '../helpers/analytics-fixtures.js'
import { buildTestApp } from '../helpers/app.js'
import { exportDir, getManifest, postExport, waitForJob } from '../helpers/exports.js'
import { openPartnerApi, type PartnerApi } from '../helpers/partner-api.js'
import { bearer, createPartner, loginToken } from '../helpers/partners.js'
import { DIALECTS } from '../helpers/stores.js'

/**
 * Claims and leases (docs/exports.md "Running"): a job held by a live lease is claimed by no other
 * instance; a lease left by an instance that died (it never renews, as after kill -9) runs out and
 * another instance runs the job to the end with correct files; the caps are applied by the claim
 * over every instance: one job per partner, two in all, the others queued.
 */

const QUIET = { info: () => {}, warn: () => {}, error: () => {} }
const dataset = generateDataset({ seed: 5, start: '2026-01-01', days: 45 })

for (const dialect of DIALECTS) {
  describe(`export claims and leases (${dialect})`, () => {
    let api: PartnerApi
    const dir = exportDir()
    before(async () => {
      api = await openPartnerApi(dialect, {
        brandIds: [1, 2],
        seed: async (test) => { await insertDatasetAndReadModel(test.store, dataset) },
        env: { EXPORT_DIR: dir },
        exports: { pollMs: 50, leaseMs: 1500 },
      })
    })
    after(async () => { await api.close() })

    it('a dead instance\'s job is claimed by no one while its lease lives, then run to the end by another instance', async () => {
      const created = await postExport(api.app, api.auth, { dataset: 'daily', format: 'csv' })
      const store = api.test.store
      // Instance A claims the job and dies at once: it never renews its lease.
      const dead = await claimExportJob(store.db, store.dialect, { nowMs: Date.now(), startedAt: '2026-11-28T00:00:00Z', token: 'instance-a', leaseMs: 1500, perPartner: 1, global: 2 })
      assert.equal(dead?.export_id, created.body.id)
      // While that lease lives nobody else may run the job.
      const early = await claimExportJob(store.db, store.dialect, { nowMs: Date.now(), startedAt: '2026-11-28T00:00:00Z', token: 'instance-c', leaseMs: 1500, perPartner: 1, global: 2 })
      assert.equal(early, undefined)
      // Instance B (another app on the same database) takes it over once the lease has run out.
      const instanceB = await buildTestApp(store, { RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_PER_HOUR: '0', EXPORT_DIR: dir }, { exports: { pollMs: 50, leaseMs: 1500 } })
      try {
        instanceB.services.exports.worker.start(QUIET)
        const job = await waitForJob(api.app, api.auth, created.body.id)
        assert.equal(job.status, 'succeeded', JSON.stringify(job.error))
        const row = await store.db.selectFrom('export_jobs').select(['attempts', 'lease_token']).where('export_id', '=', job.id).executeTakeFirstOrThrow()
        assert.deepEqual([Number(row.attempts), row.lease_token], [2, null])
        const manifest = await getManifest(api.app, api.auth, job.id)
        assert.equal(manifest.rows, job.progress.rows_written)
        assert.ok(manifest.rows > 0)
      } finally {
        await instanceB.close()
      }
    })

    it('applies the caps in the claim: one job per partner, two in all, the rest queued', async () => {
      const other = bearer(await loginToken(api.app, await createPartner(api.test.store, { brandIds: [1] })))
      const third = bearer(await loginToken(api.app, await createPartner(api.test.store, { brandIds: [2] })))
      const ids = [
        (await postExport(api.app, api.auth, { dataset: 'accounts' })).body.id,
        (await postExport(api.app, api.auth, { dataset: 'accounts' })).body.id,
        (await postExport(api.app, other, { dataset: 'accounts' })).body.id,
        (await postExport(api.app, third, { dataset: 'accounts' })).body.id,
      ]
      const store = api.test.store
      const claim = async (token: string) => await claimExportJob(store.db, store.dialect, { nowMs: Date.now(), startedAt: '2026-11-28T00:00:00Z', token, leaseMs: 60_000, perPartner: 1, global: 2 })
      const first = await claim('a')
      const second = await claim('b')
      assert.equal(await claim('c'), undefined, 'two running in all')
      const owners = await store.db.selectFrom('export_jobs').select(['export_id', 'user_id', 'status']).where('export_id', 'in', ids).execute()
      const running = owners.filter((row) => row.status === 'running')
      assert.deepEqual(running.map((row) => row.export_id).sort(), [first?.export_id, second?.export_id].sort())
      assert.equal(new Set(running.map((row) => row.user_id)).size, 2, 'one job per partner')
      assert.equal(owners.filter((row) => row.status === 'queued').length, 2, 'the others stay queued')
    })
  })
}
