import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { DuckDBInstance } from '@duckdb/node-api'
import { sql } from 'kysely'
import { generateDataset, insertDatasetAndReadModel } from '../helpers/analytics-fixtures.js'
import { download, exportDir, getManifest, postExport, waitForJob } from '../helpers/exports.js'
import { openPartnerApi, type PartnerApi } from '../helpers/partner-api.js'
import { DIALECTS } from '../helpers/stores.js'

/**
 * A daily Parquet export keeps every stored number as it is (docs/exports.md): revenue is the
 * stored micro-units as an exact DECIMAL(18,6) — negative amounts, amounts under a cent, up to the
 * type's largest — counts are exact past 2^53, and NULL stays NULL. Each store writes the staging
 * text of this export itself (PostgreSQL's COPY, SQLite's select of CSV lines), so each is checked.
 * The files are read back as text (DuckDB's `::varchar`): a JavaScript number would round the
 * largest values on the way.
 */

const QUIET = { info: () => {}, warn: () => {}, error: () => {} }
const dataset = generateDataset({ seed: 31, start: '2026-01-01', days: 10 })

/** fb 100 of brand 1 on 2026-01-02 …: [revenue_micros, views] as stored (SQL literals), and as the file must give them. */
const EDGES: Array<{ date: string, revenueMicros: string, views: string, revenue: string | null, viewsText: string | null }> = [
  { date: '2026-01-02', revenueMicros: '-1500000', views: '0', revenue: '-1.500000', viewsText: '0' },
  { date: '2026-01-03', revenueMicros: '-5', views: '-42', revenue: '-0.000005', viewsText: '-42' },
  { date: '2026-01-04', revenueMicros: '-1000000', views: 'null', revenue: '-1.000000', viewsText: null },
  { date: '2026-01-05', revenueMicros: '0', views: '9007199254740993', revenue: '0.000000', viewsText: '9007199254740993' },
  { date: '2026-01-06', revenueMicros: '999999999999999999', views: '9223372036854775807', revenue: '999999999999.999999', viewsText: '9223372036854775807' },
  { date: '2026-01-07', revenueMicros: '-999999999999999999', views: '1', revenue: '-999999999999.999999', viewsText: '1' },
  { date: '2026-01-08', revenueMicros: '7', views: '2', revenue: '0.000007', viewsText: '2' },
  { date: '2026-01-09', revenueMicros: 'null', views: '3', revenue: null, viewsText: '3' },
]

for (const dialect of DIALECTS) {
  describe(`daily Parquet export: exact values (${dialect})`, () => {
    let api: PartnerApi
    let scratch: string
    before(async () => {
      scratch = mkdtempSync(join(tmpdir(), 'export-exact-'))
      api = await openPartnerApi(dialect, {
        brandIds: [1],
        seed: async (test) => {
          await insertDatasetAndReadModel(test.store, dataset)
          for (const edge of EDGES) {
            // Literals, not parameters: a JavaScript number could not carry these values to the store.
            await sql`insert into daily_metrics (platform, account_id, date, revenue_micros, views)
              values ('fb', 100, ${edge.date}, ${sql.raw(edge.revenueMicros)}, ${sql.raw(edge.views)})
              on conflict (platform, account_id, date) do update set revenue_micros = excluded.revenue_micros, views = excluded.views`.execute(test.store.db)
          }
        },
        env: { EXPORT_DIR: exportDir() },
        exports: { pollMs: 50, leaseMs: 3000 },
      })
      api.app.services.exports.worker.start(QUIET)
    })
    after(async () => {
      await api.close()
      rmSync(scratch, { recursive: true, force: true })
    })

    it('revenue, counts and NULLs are the stored values, digit for digit', async () => {
      const created = await postExport(api.app, api.auth, { dataset: 'daily', format: 'parquet', since: '2026-01-02', until: '2026-01-09', platform: ['fb'] })
      assert.equal(created.status, 202, JSON.stringify(created.body))
      const job = await waitForJob(api.app, api.auth, created.body.id)
      assert.equal(job.status, 'succeeded', JSON.stringify(job.error))
      const manifest = await getManifest(api.app, api.auth, job.id)
      assert.deepEqual(manifest.files.map((file) => [file.name, file.rows]), [['daily-2026-01.parquet', EDGES.length]])
      const file = join(scratch, 'daily.parquet')
      writeFileSync(file, (await download(api.app, api.auth, manifest.files[0]?.url ?? '')).bytes)

      const duck = await DuckDBInstance.create(':memory:')
      const connection = await duck.connect()
      try {
        const types = (await connection.runAndReadAll(`select column_name, column_type from (describe select * from read_parquet('${file}')) where column_name in ('revenue', 'views')`)).getRows()
        assert.deepEqual(types, [['revenue', 'DECIMAL(18,6)'], ['views', 'BIGINT']])
        const rows = (await connection.runAndReadAll(`select date::varchar, brand_id, platform, account_id, revenue::varchar, views::varchar from read_parquet('${file}')`)).getRows()
        assert.deepEqual(rows.map((row) => row.map((value) => typeof value === 'bigint' ? Number(value) : value)),
          EDGES.map((edge) => [edge.date, 1, 'fb', 100, edge.revenue, edge.viewsText]))
      } finally {
        connection.closeSync()
        duck.closeSync()
      }
    })
  })
}
