import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { generateDataset, insertDatasetAndReadModel } from '../helpers/analytics-fixtures.js'
import { docExample } from '../helpers/doc-examples.js'
import { exportDir, storeDailyRows } from '../helpers/exports.js'
import { openPartnerApi, type PartnerApi } from '../helpers/partner-api.js'
import { runBash } from '../helpers/processes.js'
import { DIALECTS } from '../helpers/stores.js'

/**
 * README.md's curl walkthrough, run as a reader runs it: the block after
 * `<!-- example: readme-walkthrough -->` as written, with bash, curl and jq, against a listening
 * server on each store, the key pair in the environment as the README says to keep it. Its last
 * step queues a Parquet export of brand 1, polls it, saves the manifest and downloads every file:
 * the folder must then hold exactly the manifest's files, byte for byte (sha256 and size), and
 * their rows must be brand 1's rows in the store.
 */

const README = join(fileURLToPath(new URL('../../', import.meta.url)), 'README.md')
const dataset = generateDataset({ seed: 11, start: '2026-01-01', days: 70 })

interface ManifestFile { name: string, rows: number, bytes: number, sha256: string }

for (const dialect of DIALECTS) {
  describe(`README.md: the curl walkthrough as written (${dialect})`, () => {
    let api: PartnerApi
    let baseUrl: string
    let folder: string
    before(async () => {
      api = await openPartnerApi(dialect, {
        brandIds: [1, 2],
        seed: async (test) => { await insertDatasetAndReadModel(test.store, dataset) },
        env: { EXPORT_DIR: exportDir() },
        exports: { pollMs: 50, leaseMs: 5000 },
      })
      // As `serve` does: the export worker runs beside the routes.
      api.app.services.exports.worker.start({ info: () => {}, warn: () => {}, error: () => {} })
      await api.app.listen({ host: '127.0.0.1', port: 0 })
      baseUrl = `http://127.0.0.1:${(api.app.server.address() as AddressInfo).port}`
      folder = mkdtempSync(join(tmpdir(), 'pa-readme-walk-'))
    })
    after(async () => {
      await api.close()
      rmSync(folder, { recursive: true, force: true })
    })

    it('logs in, reads, and downloads exactly the export manifest\'s files with brand 1\'s rows', async () => {
      const env = {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: folder,
        PA_BASE_URL: baseUrl,
        PA_API_CLIENT_KEY: api.partner.clientKey,
        PA_API_SECRET_KEY: api.partner.secretKey,
      }
      const run = await runBash(docExample(README, 'readme-walkthrough'), { cwd: folder, env, boundMs: 240_000 })
      assert.equal(run.code, 0, `the walkthrough failed: ${run.stderr}\n${run.stdout.slice(-2000)}`)
      assert.match(run.stdout, /"brands":\[/, `step 2 printed no brands: ${run.stdout.slice(0, 500)}`)

      const manifest = JSON.parse(readFileSync(join(folder, 'manifest.json'), 'utf8')) as { files: ManifestFile[] }
      const names = manifest.files.map((file) => file.name)
      assert.deepEqual(names, ['daily-2026-01.parquet', 'daily-2026-02.parquet', 'daily-2026-03.parquet'], `the manifest's files: ${JSON.stringify(manifest)}`)
      assert.deepEqual(readdirSync(folder).filter((name) => name.endsWith('.parquet')).sort(), names)
      for (const file of manifest.files) {
        const bytes = readFileSync(join(folder, file.name))
        assert.equal(bytes.length, file.bytes, `${file.name}: size`)
        assert.equal(createHash('sha256').update(bytes).digest('hex'), file.sha256, `${file.name}: sha256`)
      }
      const storeRows = (await storeDailyRows(api.test.store, { brandIds: [1] })).length
      assert.equal(manifest.files.reduce((sum, file) => sum + file.rows, 0), storeRows, 'the manifest\'s rows are brand 1\'s rows in the store')
    })
  })
}
