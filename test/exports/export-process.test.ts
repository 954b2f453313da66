import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { generateDataset, insertDatasetAndReadModel } from '../helpers/analytics-fixtures.js'
import { exportDir, getJob, postExport, waitForJob } from '../helpers/exports.js'
import { openPartnerApi, type PartnerApi } from '../helpers/partner-api.js'
import { DIALECTS } from '../helpers/stores.js'

/**
 * Each running export job has an export process of its own (docs/exports.md "Running"): when that
 * process dies (killed here with SIGKILL, as a native crash or the OOM killer would), the job fails
 * INTERNAL, its staged files are removed, and the serving process goes on answering and running
 * the next job.
 */

const QUIET = { info: () => {}, warn: () => {}, error: () => {} }
const dataset = generateDataset({ seed: 4, start: '2024-01-01', days: 500 })

/** The job's files in the staging folder (none while the folder does not exist yet). */
function stagedOf (dir: string, id: string): string[] {
  try {
    return readdirSync(join(dir, '.staging')).filter((name) => name.startsWith(`${id}-`))
  } catch {
    return []
  }
}

/** The export processes this test process started (their parent is us, their module export-process). */
function exportProcesses (): number[] {
  const pids: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      if (parent === process.pid && readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('export-process')) pids.push(Number(entry))
    } catch {
      // A process that ended meanwhile.
    }
  }
  return pids
}

async function waitFor<T> (what: () => string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (Date.now() > deadline) assert.fail(`${what()}: not within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

for (const dialect of DIALECTS) {
  describe(`an export process that dies (${dialect})`, () => {
    let api: PartnerApi
    const dir = exportDir()
    before(async () => {
      api = await openPartnerApi(dialect, {
        brandIds: [1, 2],
        seed: async (test) => { await insertDatasetAndReadModel(test.store, dataset) },
        // Many small Parquet files: the job is still writing when its process is killed.
        env: { EXPORT_DIR: dir, EXPORT_MAX_ROWS_PER_FILE: '10' },
        exports: { pollMs: 50, leaseMs: 3000 },
      })
    })
    after(async () => { await api.close() })

    it('fails its job INTERNAL, leaves no staged file, and the server runs the next job', async () => {
      api.app.services.exports.worker.start(QUIET)
      const created = await postExport(api.app, api.auth, { dataset: 'daily', format: 'parquet' })
      assert.equal(created.status, 202)
      const id = created.body.id
      let seen = ''
      // Running, its process started and its first files staged.
      const [pid] = await waitFor(() => `the job's export process writing files (last seen: ${seen})`, async () => {
        const job = await getJob(api.app, api.auth, id)
        const pids = exportProcesses()
        const staged = stagedOf(dir, id).length
        seen = `${job.status}, ${pids.length} processes, ${staged} staged files, ${JSON.stringify(job.error)}`
        return job.status === 'running' && pids.length === 1 && staged > 0 ? pids : undefined
      })
      process.kill(pid as number, 'SIGKILL')

      const failed = await waitForJob(api.app, api.auth, id, ['succeeded', 'failed', 'cancelled'], 60_000)
      assert.equal(failed.status, 'failed')
      assert.deepEqual(failed.error, { code: 'INTERNAL', message: 'The export failed on the server; create it again' })
      assert.deepEqual(stagedOf(dir, id), [], 'no staged file of the job is left')
      assert.deepEqual(exportProcesses(), [], 'no export process is left')

      const next = await postExport(api.app, api.auth, { dataset: 'accounts', format: 'csv' })
      const done = await waitForJob(api.app, api.auth, next.body.id, ['succeeded', 'failed', 'cancelled'], 60_000)
      assert.equal(done.status, 'succeeded', JSON.stringify(done.error))
      assert.ok(done.progress.rows_written > 0, 'the next job wrote the accounts')
    })
  })
}
