import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { after, before, describe, it } from 'node:test'
import { DuckDBInstance } from '@duckdb/node-api'
import pg from 'pg'
import { streamSource } from '../../src/services/import/file-source.js'
import { importSources } from '../../src/services/import/import.service.js'
import type { ExportManifest } from '../../src/http/schemas/exports.schemas.js'
import { generateDataset, insertDatasetAndReadModel } from '../helpers/analytics-fixtures.js'
import { download, exportDir, getManifest, postExport, storeDailyRows, waitForJob, type PlainRow } from '../helpers/exports.js'
import { openPartnerApi, type PartnerApi } from '../helpers/partner-api.js'
import { docExample } from '../helpers/doc-examples.js'
import { runBash } from '../helpers/processes.js'
import { createSchema, dropSchema, TEST_POSTGRES_URL } from '../helpers/stores.js'

/**
 * docs/exports.md "The loop in a warehouse, as code", run as written: the page's four snippets
 * (DuckDB load and nightly merge, PostgreSQL `\copy` load and nightly merge with psql) are read
 * from the Markdown and run against real exports of a PostgreSQL store — the full export's files
 * in export/, an import, the incremental export (changed_since_cursor = the manifest's cursor) in
 * incremental/. Both warehouses' tables equal the store's rows after the load and again after the
 * merge, and the page's CREATE TABLE follows the manifest's schema column by column.
 */

const QUIET = { info: () => {}, warn: () => {}, error: () => {} }
const DOC = fileURLToPath(new URL('../../docs/exports.md', import.meta.url))
const BRANDS = [1, 2]
const dataset = generateDataset({ seed: 17, start: '2026-01-01', days: 70 })
// A restated day (changed views and revenue) and a new day of an account of brand 1.
const IMPORT = [
  '{"kind":"daily","platform":"fb","account_id":100,"date":"2026-01-05","views":999999,"revenue":12.34}',
  '{"kind":"daily","platform":"fb","account_id":100,"date":"2026-03-20","views":5,"followers":77}',
].join('\n') + '\n'

async function bash (script: string, cwd: string, env: Record<string, string>): Promise<void> {
  const run = await runBash(script, { cwd, env: { PATH: process.env.PATH ?? '', ...env }, boundMs: 120_000 })
  assert.equal(run.code, 0, `the snippet failed: ${run.stdout}${run.stderr}`)
}

/** A warehouse row as plain values: numbers (BIGINT and DECIMAL arrive as text or numbers) as numbers. */
function plainRow (row: Record<string, unknown>): PlainRow {
  return Object.fromEntries(Object.entries(row).map(([name, value]) => [
    name,
    value === null || value === undefined ? null : name === 'date' || name === 'platform' ? String(value) : Number(value),
  ]))
}

const ORDER = 'ORDER BY date, brand_id, platform, account_id'

describe('docs/exports.md: the warehouse loop runs as written (postgres store)', () => {
  let api: PartnerApi
  let work: string
  let warehouse: { schema: string, databaseUrl: string }
  let duck: DuckDBInstance

  before(async () => {
    api = await openPartnerApi('postgres', {
      brandIds: BRANDS,
      seed: async (test) => { await insertDatasetAndReadModel(test.store, dataset) },
      env: { EXPORT_DIR: exportDir() },
      exports: { pollMs: 50, leaseMs: 3000 },
    })
    api.app.services.exports.worker.start(QUIET)
    work = mkdtempSync(join(tmpdir(), 'pa-warehouse-'))
    warehouse = await createSchema(TEST_POSTGRES_URL, 'wh')
    duck = await DuckDBInstance.create(':memory:')
  })
  after(async () => {
    duck.closeSync()
    await dropSchema(TEST_POSTGRES_URL, warehouse.schema)
    await api.close()
    rmSync(work, { recursive: true, force: true })
  })

  /** Runs an export to the end and saves its files into work/<folder>; returns its manifest. */
  async function exportInto (folder: string, body: Record<string, unknown>): Promise<ExportManifest> {
    const created = await postExport(api.app, api.auth, { dataset: 'daily', ...body })
    assert.equal(created.status, 202, JSON.stringify(created.body))
    const job = await waitForJob(api.app, api.auth, created.body.id)
    assert.equal(job.status, 'succeeded', JSON.stringify(job.error))
    const manifest = await getManifest(api.app, api.auth, job.id)
    mkdirSync(join(work, folder), { recursive: true })
    for (const file of manifest.files) writeFileSync(join(work, folder, file.name), (await download(api.app, api.auth, file.url)).bytes)
    return manifest
  }

  async function duckRows (): Promise<PlainRow[]> {
    const connection = await duck.connect()
    try {
      return (await connection.runAndReadAll(`SELECT * FROM daily ${ORDER}`)).getRowObjectsJson().map((row) => plainRow(row))
    } finally {
      connection.closeSync()
    }
  }

  /** A snippet of SQL run in DuckDB with work/ as the folder relative paths start from. */
  async function runDuck (sql: string): Promise<void> {
    const connection = await duck.connect()
    try {
      await connection.run(`SET file_search_path = '${work.replaceAll("'", "''")}'`)
      await connection.run(sql)
    } finally {
      connection.closeSync()
    }
  }

  async function postgresRows (): Promise<PlainRow[]> {
    const client = new pg.Client({ connectionString: warehouse.databaseUrl })
    await client.connect()
    try {
      const result = await client.query<{ row: string }>(`SELECT row_to_json(d)::text AS row FROM daily d ${ORDER}`)
      return result.rows.map((row) => plainRow(JSON.parse(row.row) as Record<string, unknown>))
    } finally {
      await client.end()
    }
  }

  it('loads the full export into DuckDB and PostgreSQL, merges the nightly incremental export, and both equal the store', async () => {
    const parquet = await exportInto('export', { format: 'parquet' })
    const csv = await exportInto('export', { format: 'csv', compression: 'none' })
    assert.ok(parquet.files.length > 1 && csv.files.length === parquet.files.length, 'a file per month')

    // The page's CREATE TABLE has the manifest's columns, in order, with the documented types.
    const created = /CREATE TABLE daily \(([\s\S]*?), PRIMARY KEY/.exec(docExample(DOC, 'postgres-load'))?.[1] ?? ''
    const documented = created.split(/,(?![^(]*\))/).map((column) => column.trim().split(/\s+/))
    const types: Record<string, string> = { DATE: 'date', BIGINT: 'bigint', VARCHAR: 'text', 'DECIMAL(18,6)': 'numeric(18,6)' }
    assert.deepEqual(documented.map(([name, type]) => `${name} ${type}`), csv.schema.columns.map((column) => `${column.name} ${types[column.type] ?? column.type}`))

    // libpq reads %20 as a space in the URL's options, never '+'.
    const env = { WAREHOUSE_URL: warehouse.databaseUrl.replaceAll('+', '%20') }
    await runDuck(docExample(DOC, 'duckdb-load'))
    await bash(docExample(DOC, 'postgres-load'), work, env)
    const before = await storeDailyRows(api.test.store, { brandIds: BRANDS })
    assert.equal(before.length, parquet.rows)
    assert.deepEqual(await duckRows(), before, 'DuckDB holds the store\'s rows')
    assert.deepEqual(await postgresRows(), before, 'PostgreSQL holds the store\'s rows')

    // A day restated, a day added; then the nightly incremental exports from the full export's cursor.
    await importSources(api.test.store, [streamSource(Readable.from([IMPORT]), 'restated.ndjson')])
    const nightlyParquet = await exportInto('incremental', { format: 'parquet', changed_since_cursor: parquet.changes_cursor })
    const nightlyCsv = await exportInto('incremental', { format: 'csv', compression: 'none', changed_since_cursor: csv.changes_cursor })
    assert.deepEqual(nightlyParquet.files.map((file) => file.name), ['daily-changes.parquet'])
    assert.deepEqual(nightlyCsv.files.map((file) => file.name), ['daily-changes.csv'])
    assert.ok(nightlyParquet.rows >= 2 && nightlyParquet.rows < parquet.rows, 'only the changed rows')

    await runDuck(docExample(DOC, 'duckdb-merge'))
    await bash(docExample(DOC, 'postgres-merge'), work, env)
    const current = await storeDailyRows(api.test.store, { brandIds: BRANDS })
    assert.equal(current.length, before.length + 1, 'the new day')
    const restated = current.find((row) => row.platform === 'fb' && row.account_id === 100 && row.date === '2026-01-05')
    assert.deepEqual([restated?.views, restated?.revenue], [999999, 12.34])
    assert.deepEqual(await duckRows(), current, 'DuckDB after the merge holds the store\'s rows')
    assert.deepEqual(await postgresRows(), current, 'PostgreSQL after the merge holds the store\'s rows')
  })
})
