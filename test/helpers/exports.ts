import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { createHash } from 'node:crypto'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { parse as parseCsv } from 'csv-parse/sync'
import type { FastifyInstance } from 'fastify'
import { parquetReadObjects } from 'hyparquet'
import { compressors } from 'hyparquet-compressors'
import type { ExportJob, ExportManifest } from '../../src/http/schemas/exports.schemas.js'
import { generateExportId } from '../../src/services/exports/exports.service.js'
import type { Store } from '../../src/storage/db.js'
import { insertExportJob } from '../../src/storage/exports/export-jobs.repository.js'
import { REPORTED_METRICS } from '../../src/domain/metric-catalog.js'
import { TEST_EXPORT_DIR } from './app.js'

/**
 * What the export tests share: a folder of their own for the files, creating a job and waiting
 * for it (bounded), downloading files, and reading them back with readers independent of the
 * writer (hyparquet for Parquet, csv-parse for CSV, JSON.parse for NDJSON) into plain rows:
 * dates and timestamps as text, integers and decimals as numbers, NULL as null.
 */

export function exportDir (): string {
  return mkdtempSync(join(tmpdir(), 'pa-exports-'))
}

export type PlainRow = Record<string, string | number | null>

export interface Reply<T> { status: number, body: T, headers: Record<string, unknown> }

export async function postExport (app: FastifyInstance, auth: Record<string, string>, body: Record<string, unknown>): Promise<Reply<ExportJob & Record<string, unknown>>> {
  const response = await app.inject({ method: 'POST', url: '/exports', headers: auth, payload: body })
  return { status: response.statusCode, body: response.json(), headers: response.headers }
}

export async function getJob (app: FastifyInstance, auth: Record<string, string>, id: string): Promise<ExportJob> {
  const response = await app.inject({ method: 'GET', url: `/exports/${id}`, headers: auth })
  assert.equal(response.statusCode, 200, response.body)
  return response.json()
}

/** Polls the job until it has one of `statuses` (30 s at most). */
export async function waitForJob (app: FastifyInstance, auth: Record<string, string>, id: string, statuses: readonly string[] = ['succeeded', 'failed', 'cancelled'], timeoutMs = 30_000): Promise<ExportJob> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const job = await getJob(app, auth, id)
    if (statuses.includes(job.status)) return job
    if (Date.now() > deadline) assert.fail(`export ${id} still ${job.status} after ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

export async function getManifest (app: FastifyInstance, auth: Record<string, string>, id: string): Promise<ExportManifest> {
  const response = await app.inject({ method: 'GET', url: `/exports/${id}/manifest`, headers: auth })
  assert.equal(response.statusCode, 200, response.body)
  return response.json()
}

export async function download (app: FastifyInstance, auth: Record<string, string>, url: string, headers: Record<string, string> = {}): Promise<{ status: number, bytes: Buffer, headers: Record<string, unknown> }> {
  const response = await app.inject({ method: 'GET', url, headers: { ...auth, ...headers } })
  return { status: response.statusCode, bytes: response.rawPayload, headers: response.headers }
}

function plain (value: unknown): string | number | null {
  if (value === null || value === undefined) return null
  if (typeof value === 'bigint') return Number(value)
  if (value instanceof Date) return value.toISOString().endsWith('T00:00:00.000Z') && value.getUTCHours() === 0 ? value.toISOString().slice(0, 10) : value.toISOString().slice(0, 19) + 'Z'
  return value as string | number
}

/** A file's rows, read by a reader independent of the writer; `types` tells text columns from numbers (CSV). */
export async function readRows (bytes: Buffer, format: string, compression: string, types: Record<string, string>): Promise<PlainRow[]> {
  if (format === 'parquet') {
    const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer
    const rows = await parquetReadObjects({ file, compressors })
    return rows.map((row) => Object.fromEntries(Object.entries(row).map(([name, value]) => [name, types[name] === 'TIMESTAMP' && value instanceof Date ? value.toISOString().slice(0, 19) + 'Z' : plain(value)])))
  }
  const text = (compression === 'gzip' ? gunzipSync(bytes) : bytes).toString('utf8')
  if (format === 'ndjson') return text.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as PlainRow)
  const records = parseCsv(text, { columns: true, cast: false }) as Array<Record<string, string>>
  return records.map((record) => Object.fromEntries(Object.entries(record).map(([name, value]) => {
    if (value === '') return [name, null]
    const type = types[name] ?? 'VARCHAR'
    return [name, type === 'BIGINT' || type.startsWith('DECIMAL') ? Number(value) : value]
  })))
}

export const EXPORT_FILE_NAME = 'daily-2026-01.csv'

/**
 * A succeeded export of the user with one small CSV file, in TEST_EXPORT_DIR (where an app built
 * by the test helpers keeps its files): for walks over the route table that need an export id.
 */
export async function insertSucceededExport (store: Store, userId: string): Promise<string> {
  const exportId = generateExportId()
  const content = Buffer.from('date,brand_id\r\n2026-01-01,1\r\n')
  mkdirSync(join(TEST_EXPORT_DIR, exportId), { recursive: true })
  writeFileSync(join(TEST_EXPORT_DIR, exportId, EXPORT_FILE_NAME), content)
  const now = new Date().toISOString().slice(0, 19) + 'Z'
  const file = { name: EXPORT_FILE_NAME, rows: 1, bytes: content.length, sha256: createHash('sha256').update(content).digest('hex') }
  await insertExportJob(store.db, {
    export_id: exportId,
    user_id: userId,
    dataset: 'daily',
    format: 'csv',
    compression: 'none',
    request: JSON.stringify({ dataset: 'daily', format: 'csv', compression: 'none' }),
    status: 'succeeded',
    rows_written: 1,
    rows_estimate: 1,
    error_code: null,
    error_message: null,
    files: JSON.stringify([file]),
    sync_id: 0,
    event_id: 0,
    attempts: 1,
    lease_until_ms: null,
    lease_token: null,
    created_at: now,
    started_at: now,
    finished_at: now,
    expires_at: '2999-01-01T00:00:00Z',
    expired: 0,
  })
  return exportId
}

/** The store's own daily rows of the brands in the period (inclusive; undefined: unbounded), as plain rows in the files' order (date, brand, platform, account). */
export async function storeDailyRows (store: Store, scope: { brandIds: number[], since?: string, until?: string }): Promise<PlainRow[]> {
  const rows = await store.db.selectFrom('daily_metrics as d')
    .innerJoin('accounts as a', (join) => join.onRef('a.platform', '=', 'd.platform').onRef('a.account_id', '=', 'd.account_id'))
    .selectAll('d').select('a.brand_id')
    .where('a.brand_id', 'in', scope.brandIds)
    .$if(scope.since !== undefined, (query) => query.where('d.date', '>=', scope.since ?? ''))
    .$if(scope.until !== undefined, (query) => query.where('d.date', '<=', scope.until ?? ''))
    .orderBy('d.date').orderBy('a.brand_id').orderBy('d.platform').orderBy('d.account_id')
    .execute()
  return rows.map((row) => {
    const record = row as unknown as Record<string, unknown>
    const plain: PlainRow = { date: String(record.date), brand_id: Number(record.brand_id), platform: String(record.platform), account_id: Number(record.account_id) }
    for (const metric of REPORTED_METRICS) {
      const value = metric === 'revenue' ? record.revenue_micros : record[metric]
      plain[metric] = value === null || value === undefined ? null : metric === 'revenue' ? Number(value) / 1e6 : Number(value)
    }
    return plain
  })
}

/**
 * Downloads every file of a succeeded job's manifest, checks each one's bytes against the
 * manifest's `bytes` and `sha256`, and returns all their rows in the manifest's order.
 */
export async function verifiedRows (app: FastifyInstance, auth: Record<string, string>, manifest: ExportManifest): Promise<PlainRow[]> {
  const types = Object.fromEntries(manifest.schema.columns.map((column) => [column.name, column.type]))
  const rows: PlainRow[] = []
  for (const file of manifest.files) {
    const got = await download(app, auth, file.url)
    assert.equal(got.status, 200, file.name)
    assert.equal(got.bytes.length, file.bytes, `${file.name}: bytes`)
    assert.equal(createHash('sha256').update(got.bytes).digest('hex'), file.sha256, `${file.name}: sha256`)
    const read = await readRows(got.bytes, manifest.format, manifest.compression, types)
    assert.equal(read.length, file.rows, `${file.name}: rows`)
    rows.push(...read)
  }
  return rows
}
