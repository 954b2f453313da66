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
import { createTestStore, type TestStore } from '../helpers/stores.js'

/**
 * Two built `serve` processes on one PostgreSQL store, both claiming export jobs (docs/exports.md
 * "Running"): every job of several partners is run by exactly one instance, once — one
 * `export started` line for it in both logs together, `attempts` 1 — and the caps hold over the
 * two instances together (never more than EXPORT_CONCURRENCY jobs running, nor two of one
 * partner's, at any moment the test looked). Every job's files are then exactly its manifest's,
 * with the store's rows. (The lease itself — no claim while it lives, a claim once it ran out —
 * is tested in lease.test.ts; a killed instance's job in kill-serve.test.ts.)
 */

const dataset = generateDataset({ seed: 31, start: '2024-01-01', days: 400 })
const PARTNERS = [[1], [2], [1, 2]]
const JOBS_PER_PARTNER = 3

describe('two serve instances never run one export job at once (postgres)', () => {
  let test: TestStore
  let app: FastifyInstance
  const dir = exportDir()
  const servers: BuiltServer[] = []

  before(async () => {
    await buildServer()
    test = await createTestStore('postgres')
    await insertDatasetAndReadModel(test.store, dataset)
    // The test's own view of the store (the API calls); its export worker is never started.
    app = await buildTestApp(test.store, { EXPORT_DIR: dir, RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_PER_HOUR: '0' })
  })
  after(async () => {
    for (const server of servers) await server.stop()
    await app.close()
    await test.cleanup()
  })

  it('each job is claimed and run by one instance exactly once, within the caps over both', async (t) => {
    // Many small Parquet files keep each job running a while, so the instances' claims overlap.
    const env = { DATABASE_URL: test.databaseUrl, EXPORT_DIR: dir, EXPORT_MAX_ROWS_PER_FILE: '100', EXPORT_CONCURRENCY: '2', EXPORT_CONCURRENCY_PER_PARTNER: '1', EXPORT_NICE: '0' }
    servers.push(await startBuiltServer(env), await startBuiltServer(env))
    // From the first job until every job has ended: never more than 2 running in all, nor 2 of one partner's.
    const sampling = { done: false }
    async function sample (): Promise<{ mostRunning: number, violations: string[] }> {
      let mostRunning = 0
      const violations: string[] = []
      while (!sampling.done) {
        const running = await test.store.db.selectFrom('export_jobs').select(['export_id', 'user_id']).where('status', '=', 'running').execute()
        mostRunning = Math.max(mostRunning, running.length)
        if (running.length > 2) violations.push(`${running.length} running at once over both instances`)
        if (new Set(running.map((row) => row.user_id)).size !== running.length) violations.push('two of one partner\'s jobs running at once')
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      return { mostRunning, violations }
    }
    const jobs: Array<{ id: string, auth: Record<string, string>, brandIds: number[] }> = []
    const create = async (partner: { brandIds: number[], auth: Record<string, string> }): Promise<string> => {
      const created = await postExport(app, partner.auth, { dataset: 'daily', format: 'parquet' })
      assert.equal(created.status, 202)
      jobs.push({ id: created.body.id, ...partner })
      return created.body.id
    }
    const sampled = sample()
    try {
      const partners = await Promise.all(PARTNERS.map(async (brandIds) => {
        const partner = await createPartner(test.store, { brandIds })
        return { brandIds, auth: bearer(await loginToken(app, partner)) }
      }))
      // The first job of each partner at once (the instances race for them), then each further one
      // once the one before it has been claimed: every job is claimed by whichever instance polls
      // or frees a slot first, so both instances claim jobs.
      for (const partner of partners) await create(partner)
      for (let i = 1; i < JOBS_PER_PARTNER; i++) {
        for (const partner of partners) {
          const id = await create(partner)
          await waitFor(`${id} claimed`, async () => (await test.store.db.selectFrom('export_jobs').select('status').where('export_id', '=', id).executeTakeFirstOrThrow()).status !== 'queued', 120_000)
        }
      }

      await waitFor('every job ended', async () => {
        const rows = await test.store.db.selectFrom('export_jobs').select('status').execute()
        return rows.length === jobs.length && rows.every((row) => row.status !== 'queued' && row.status !== 'running')
      }, 180_000)
    } finally {
      sampling.done = true
    }
    const { mostRunning, violations } = await sampled
    assert.deepEqual(violations, [])

    const started = (server: BuiltServer, id: string): number => server.output().split('\n').filter((line) => line.includes(id) && line.includes('export started')).length
    const byInstance = [0, 0]
    for (const job of jobs) {
      const ended = await waitForJob(app, job.auth, job.id)
      assert.equal(ended.status, 'succeeded', JSON.stringify(ended.error))
      const counts = servers.map((server) => started(server, job.id))
      assert.deepEqual(counts.slice().sort(), [0, 1], `${job.id}: started once, by one instance (${counts.join(', ')})`)
      const runner = counts.indexOf(1)
      byInstance[runner] = (byInstance[runner] ?? 0) + 1
      const row = await test.store.db.selectFrom('export_jobs').select('attempts').where('export_id', '=', job.id).executeTakeFirstOrThrow()
      assert.equal(Number(row.attempts), 1, `${job.id}: claimed once`)
      const manifest = await getManifest(app, job.auth, job.id)
      assert.deepEqual(readdirSync(join(dir, job.id)).sort(), manifest.files.map((file) => file.name).sort(), `${job.id}: exactly the manifest's files`)
      assert.deepEqual(await verifiedRows(app, job.auth, manifest), await storeDailyRows(test.store, { brandIds: job.brandIds }))
    }
    t.diagnostic(`${jobs.length} jobs: ${byInstance[0]} run by instance A, ${byInstance[1]} by instance B; at most ${mostRunning} running at once`)
  })
})
