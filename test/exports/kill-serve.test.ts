import assert from 'node:assert/strict'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { generateDataset, insertDatasetAndReadModel } from '../helpers/analytics-fixtures.js'
import { buildTestApp } from '../helpers/app.js'
import { buildServer, startBuiltServer, type BuiltServer } from '../helpers/built-serve.js'
import { exportDir, getManifest, postExport, storeDailyRows, verifiedRows, waitForJob } from '../helpers/exports.js'
import { bearer, createPartner, loginToken } from '../helpers/partners.js'
import { waitFor } from '../helpers/processes.js'
import { createTestStore, DIALECTS, type TestStore } from '../helpers/stores.js'

/**
 * `kill -9` of the built `serve` running an export job (docs/exports.md "Running"), on both
 * stores: the job is killed mid-write (files of it already on disk, its row still `running`
 * under the dead instance's lease); once that lease runs out (30 s) the job is claimed again —
 * on SQLite by the same file's `serve` restarted, on PostgreSQL by a second instance that was
 * running all along — and completes: its folder holds exactly the manifest's files (the first
 * attempt's partial files are gone), every file's SHA-256 and size match the manifest, and the
 * rows read back equal the store's. Never a fixed sleep: every wait is for a condition, bounded.
 *
 * The job is made long with many small Parquet files (EXPORT_MAX_ROWS_PER_FILE=25: each month of
 * ~290 rows is cut into ~12 files, each built by DuckDB), so it is still writing when killed.
 */

const dataset = generateDataset({ seed: 9, start: '2022-01-01', days: 1500 })
const BRANDS = [1, 2]

for (const dialect of DIALECTS) {
  describe(`export survives kill -9 of serve (${dialect})`, () => {
    let test: TestStore
    let app: FastifyInstance
    const dir = exportDir()
    const servers: BuiltServer[] = []

    before(async () => {
      await buildServer()
      test = await createTestStore(dialect)
      await insertDatasetAndReadModel(test.store, dataset)
      // The test's own view of the store (the API calls); its export worker is never started.
      app = await buildTestApp(test.store, { EXPORT_DIR: dir, RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_PER_HOUR: '0' })
    })
    after(async () => {
      for (const server of servers) if (server.child.exitCode === null && server.child.signalCode === null) await server.stop()
      await app.close()
      await test.cleanup()
    })

    it('a job killed mid-write completes on another instance with the manifest\'s files and the store\'s rows', async (t) => {
      const env = { DATABASE_URL: test.databaseUrl, EXPORT_DIR: dir, EXPORT_MAX_ROWS_PER_FILE: '25', EXPORT_NICE: '0' }
      const start = async (): Promise<BuiltServer> => {
        const server = await startBuiltServer(env)
        servers.push(server)
        return server
      }
      const first = await start()
      // PostgreSQL: a second instance shares the store from the start; either may claim the job.
      const second = dialect === 'postgres' ? await start() : undefined
      const auth = bearer(await loginToken(app, await createPartner(test.store, { brandIds: BRANDS })))
      const created = await postExport(app, auth, { dataset: 'daily', format: 'parquet' })
      assert.equal(created.status, 202)
      const id = created.body.id
      const jobRow = async () => await test.store.db.selectFrom('export_jobs').select(['status', 'attempts', 'started_at', 'lease_token']).where('export_id', '=', id).executeTakeFirstOrThrow()
      const filesOnDisk = (): string[] => { try { return readdirSync(join(dir, id)).sort() } catch { return [] } }

      // Mid-write: the job is running and some of its files are already written.
      // The bounds below are generous, not expectations: on a loaded 2-core machine (load 20) the
      // 30 s lease plus the second run took over 120 s, where the whole test takes about 45 s.
      await waitFor('the job running with files written', async () => (await jobRow()).status === 'running' && filesOnDisk().length >= 3, 180_000)
      const runner = [first, second].find((server) => server?.output().includes(id))
      assert.ok(runner !== undefined, 'the instance running the job logged it')
      await runner.kill9()
      const atKill = await jobRow()
      const writtenAtKill = filesOnDisk().length
      // Killed before it finished: still running, under the dead instance's lease.
      assert.equal(atKill.status, 'running')
      assert.notEqual(atKill.lease_token, null)
      assert.equal(Number(atKill.attempts), 1)

      // SQLite: the same file's serve restarted; PostgreSQL: the other instance takes over.
      const survivor = second === undefined ? await start() : (runner === first ? second : first)
      // Two steps, so that a failure says which did not happen: the claim once the lease is out, the end.
      await waitFor('the surviving instance claims the job', () => survivor.output().includes(id), 180_000)
      const job = await waitForJob(app, auth, id, ['succeeded', 'failed', 'cancelled'], 300_000)
      assert.equal(job.status, 'succeeded', JSON.stringify(job.error))
      const done = await jobRow()
      assert.equal(Number(done.attempts), 2, 'claimed once more, after the lease ran out')
      assert.equal(String(done.started_at), String(atKill.started_at), 'started_at is the first start\'s')

      const manifest = await getManifest(app, auth, id)
      t.diagnostic(`${dialect}: ${writtenAtKill} files written at the kill; ${manifest.files.length} files, ${manifest.rows} rows after the takeover`)
      assert.ok(manifest.files.length > writtenAtKill)
      // Exactly the manifest's files: nothing of the first attempt is left beside them.
      assert.deepEqual(filesOnDisk(), manifest.files.map((file) => file.name).sort())
      const rows = await verifiedRows(app, auth, manifest)
      assert.deepEqual(rows, await storeDailyRows(test.store, { brandIds: BRANDS }))
      assert.equal(manifest.rows, rows.length)
    })
  })
}
