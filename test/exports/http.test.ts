import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { datasetColumns } from '../../src/domain/exports.js'
import { generateDataset, insertDatasetAndReadModel } from '../helpers/analytics-fixtures.js'
import { download, exportDir, getManifest, postExport, readRows, waitForJob } from '../helpers/exports.js'
import { openPartnerApi, type PartnerApi } from '../helpers/partner-api.js'
import { bearer, createPartner, loginToken } from '../helpers/partners.js'
import { DIALECTS } from '../helpers/stores.js'

/**
 * The export routes as a partner sees them (docs/exports.md, docs/api-reference.md "Exports"):
 * 400 → 403 → 404 as /analytics/ decides them, 422 for bodies, another partner's jobs invisible,
 * 409 before a job has succeeded, cancel and remove, Range downloads resuming to the same SHA-256,
 * 304 and 416, the retention's 410, and a brand revoked between create and run never exported.
 * Every error answer is the contract's JSON body.
 */

const QUIET = { info: () => {}, warn: () => {}, error: () => {} }
const JSON_TYPE = 'application/json; charset=utf-8'
const dataset = generateDataset({ seed: 7, start: '2026-01-01', days: 60 })

function assertError (response: { status: number, body: Record<string, unknown>, headers: Record<string, unknown> }, status: number, code: string): void {
  assert.equal(response.status, status, JSON.stringify(response.body))
  assert.equal(response.headers['content-type'], JSON_TYPE)
  assert.equal(response.body.error_code, code)
  assert.equal(response.body.status_code, status)
}

for (const dialect of DIALECTS) {
  describe(`export routes (${dialect})`, () => {
    let api: PartnerApi
    let clock = Date.parse('2026-03-01T12:00:00Z')
    before(async () => {
      api = await openPartnerApi(dialect, {
        brandIds: [1, 2],
        seed: async (test) => { await insertDatasetAndReadModel(test.store, dataset) },
        env: { EXPORT_DIR: exportDir(), EXPORT_RETENTION_HOURS: '72', TOKEN_TTL_SECONDS: '1000000' },
        now: () => clock,
        exports: { pollMs: 50, leaseMs: 3000 },
      })
    })
    after(async () => { await api.close() })

    it('refuses a bad body (422), then 400 → 403 → 404 as /analytics/ does', async () => {
      const post = async (body: Record<string, unknown>) => await postExport(api.app, api.auth, body)
      for (const [body, loc] of [
        [{}, 'dataset'],
        [{ dataset: 'daily', format: 'parquet', compression: 'gzip' }, 'compression'],
        [{ dataset: 'daily', format: 'csv', compression: 'zstd' }, 'compression'],
        [{ dataset: 'daily', since: '2026-02-01', until: '2026-01-01' }, 'since'],
        [{ dataset: 'posts', changed_since_cursor: 'abc' }, 'changed_since_cursor'],
        [{ dataset: 'daily', changed_since_cursor: 'garbage' }, 'changed_since_cursor'],
        [{ dataset: 'daily', brand_id: [0] }, 'brand_id'],
        [{ dataset: 'weekly' }, 'dataset'],
      ] as const) {
        const response = await post(body)
        assertError(response, 422, 'VALIDATION_ERROR')
        const issues = response.body.detail as unknown as Array<{ loc: string[] }>
        assert.ok(issues.some((issue) => issue.loc.join('.').startsWith(`body.${loc}`)), `${JSON.stringify(body)}: ${JSON.stringify(issues)}`)
      }
      const bare = await post({ dataset: 'daily', account_id: [100] })
      assert.equal(bare.status, 400)
      assert.deepEqual(bare.body, { detail: 'account_id requires exactly one platform to be specified' })
      assertError(await post({ dataset: 'daily', brand_id: [1, 4] }), 403, 'FORBIDDEN')
      assertError(await post({ dataset: 'daily', account_id: [400], platform: ['fb'] }), 404, 'NOT_FOUND')
      const unauthenticated = await api.app.inject({ method: 'POST', url: '/exports', payload: { dataset: 'daily' } })
      assert.equal(unauthenticated.statusCode, 401)
    })

    it('shows a job only to its partner; 409 until it has succeeded; a queued job is cancelled, a finished one removed', async () => {
      const created = await postExport(api.app, api.auth, { dataset: 'daily', format: 'csv', brand_id: [2, 1, 1], platform: ['facebook', 'ig'] })
      assert.equal(created.status, 202)
      assert.deepEqual([created.body.brand_ids, created.body.platforms, created.body.compression, created.body.since], [[1, 2], ['fb', 'ig'], 'gzip', null])
      const id = created.body.id
      const other = bearer(await loginToken(api.app, await createPartner(api.test.store, { brandIds: [1, 2] })))
      for (const url of [`/exports/${id}`, `/exports/${id}/manifest`, `/exports/${id}/files/daily-2026-01.csv.gz`]) {
        const response = await api.get(url, {}, other)
        assertError(response as never, 404, 'NOT_FOUND')
      }
      assert.deepEqual((await api.get<{ data: unknown[] }>('/exports', {}, other)).body.data, [])
      assertError(await api.get(`/exports/${id}/manifest`) as never, 409, 'EXPORT_NOT_READY')
      const listed = await api.get<{ data: Array<{ id: string }> }>('/exports')
      assert.equal(listed.body.data[0]?.id, id)

      const cancelled = await api.app.inject({ method: 'DELETE', url: `/exports/${id}`, headers: api.auth })
      assert.equal(cancelled.statusCode, 200)
      assert.equal(cancelled.json().status, 'cancelled')
      const removed = await api.app.inject({ method: 'DELETE', url: `/exports/${id}`, headers: api.auth })
      assert.equal(removed.statusCode, 204)
      assertError(await api.get(`/exports/${id}`) as never, 404, 'NOT_FOUND')
    })

    it('pages the list newest first', async () => {
      const ids: string[] = []
      for (let i = 0; i < 3; i++) {
        clock += 1000
        ids.push((await postExport(api.app, api.auth, { dataset: 'accounts' })).body.id)
      }
      const first = await api.get<{ data: Array<{ id: string }>, next_cursor: string | null }>('/exports', { limit: '2' })
      assert.deepEqual(first.body.data.map((job) => job.id), [ids[2], ids[1]])
      assert.ok(first.body.next_cursor !== null)
      const second = await api.get<{ data: Array<{ id: string }>, next_cursor: string | null }>('/exports', { limit: '2', cursor: first.body.next_cursor ?? '' })
      assert.equal(second.body.data[0]?.id, ids[0])
      assertError(await api.get('/exports', { cursor: 'x' }) as never, 422, 'VALIDATION_ERROR')
      for (const id of ids) await api.app.inject({ method: 'DELETE', url: `/exports/${id}`, headers: api.auth })
    })

    it('never exports a brand revoked after the job was created', async () => {
      const created = await postExport(api.app, api.auth, { dataset: 'daily', format: 'ndjson' })
      await api.app.services.users.revoke(api.partner.userId, [2])
      api.app.services.exports.worker.start(QUIET)
      try {
        const job = await waitForJob(api.app, api.auth, created.body.id)
        assert.equal(job.status, 'succeeded', JSON.stringify(job.error))
        const brands = new Set<unknown>()
        for (const file of job.files ?? []) {
          for (const row of await readRows((await download(api.app, api.auth, file.url)).bytes, 'ndjson', 'gzip', {})) brands.add(row.brand_id)
        }
        assert.deepEqual([...brands], [1])
      } finally {
        await api.app.services.exports.worker.stop(1000)
        await api.app.services.users.grant(api.partner.userId, [2])
      }
    })

    it('serves files with ETag, 304, Range (resuming to the same SHA-256) and 416; 410 once the retention removed them', async () => {
      api.app.services.exports.worker.start(QUIET)
      try {
        const created = await postExport(api.app, api.auth, { dataset: 'daily', since: '2026-01-01', until: '2026-01-31' })
        const job = await waitForJob(api.app, api.auth, created.body.id)
        assert.equal(job.status, 'succeeded', JSON.stringify(job.error))
        const manifest = await getManifest(api.app, api.auth, job.id)
        assert.equal(manifest.schema_version, 1)
        assert.deepEqual(manifest.schema.columns.map((column) => column.name), datasetColumns('daily').map((column) => column.name))
        assert.equal(manifest.schema.columns.find((column) => column.name === 'revenue')?.unit, 'currency')
        const file = manifest.files[0]
        assert.ok(file !== undefined && file.bytes > 100)
        const whole = await download(api.app, api.auth, file.url)
        assert.equal(whole.status, 200)
        assert.equal(whole.headers['content-type'], 'application/vnd.apache.parquet')
        assert.equal(whole.headers['accept-ranges'], 'bytes')
        assert.equal(createHash('sha256').update(whole.bytes).digest('hex'), file.sha256)

        // An interrupted download resumes from where it stopped, to the same bytes.
        const cut = Math.floor(file.bytes / 3)
        const head = await download(api.app, api.auth, file.url, { range: `bytes=0-${cut - 1}` })
        assert.equal(head.status, 206)
        assert.equal(head.headers['content-range'], `bytes 0-${cut - 1}/${file.bytes}`)
        const rest = await download(api.app, api.auth, file.url, { range: `bytes=${cut}-`, 'if-range': `"${file.sha256}"` })
        assert.equal(rest.status, 206)
        assert.equal(createHash('sha256').update(Buffer.concat([head.bytes, rest.bytes])).digest('hex'), file.sha256)
        const stale = await download(api.app, api.auth, file.url, { range: `bytes=${cut}-`, 'if-range': '"another"' })
        assert.equal(stale.status, 200)
        assert.equal(stale.bytes.length, file.bytes)
        const unchanged = await download(api.app, api.auth, file.url, { 'if-none-match': `"${file.sha256}"` })
        assert.equal(unchanged.status, 304)
        // If-None-Match as HTTP defines it: a list of tags, a weak tag, or `*` (RFC 9110 §13.1.2).
        for (const header of [`"another", "${file.sha256}"`, `W/"${file.sha256}"`, '*']) {
          assert.equal((await download(api.app, api.auth, file.url, { 'if-none-match': header })).status, 304, header)
        }
        assert.equal((await download(api.app, api.auth, file.url, { 'if-none-match': '"another"' })).status, 200)
        const beyond = await download(api.app, api.auth, file.url, { range: `bytes=${file.bytes}-` })
        assert.equal(beyond.status, 416)
        assert.equal(beyond.headers['content-range'], `bytes */${file.bytes}`)
        assert.equal(beyond.headers['content-type'], JSON_TYPE)
        assert.equal(JSON.parse(beyond.bytes.toString()).error_code, 'RANGE_NOT_SATISFIABLE')

        // Past EXPORT_RETENTION_HOURS: files removed, manifest and files 410, the job still readable.
        clock += 71 * 3_600_000
        await api.app.services.exports.worker.purgeExpired()
        // The clock moved past the token's lifetime: log in again.
        const auth = bearer(await loginToken(api.app, api.partner))
        assert.equal((await api.get(`/exports/${job.id}/manifest`, {}, auth)).status, 200)
        clock += 2 * 3_600_000
        assert.ok(await api.app.services.exports.worker.purgeExpired() >= 1)
        assertError(await api.get(`/exports/${job.id}/manifest`, {}, auth) as never, 410, 'EXPORT_EXPIRED')
        assertError(await api.get(file.url, {}, auth) as never, 410, 'EXPORT_EXPIRED')
        const expired = await api.get<{ status: string, files: unknown }>(`/exports/${job.id}`, {}, auth)
        assert.deepEqual([expired.status, expired.body.status, expired.body.files], [200, 'succeeded', null])
      } finally {
        await api.app.services.exports.worker.stop(1000)
      }
    })
  })
}
