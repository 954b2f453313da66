import assert from 'node:assert/strict'
import { Readable } from 'node:stream'
import { after, before, describe, it } from 'node:test'
import { streamSource } from '../../src/services/import/file-source.js'
import { importSources } from '../../src/services/import/import.service.js'
import { dailyRowsQuery } from '../../src/storage/exports/dataset-queries.js'
import { openSnapshot } from '../../src/storage/exports/snapshot.js'
import { generateDataset, insertDatasetAndReadModel } from '../helpers/analytics-fixtures.js'
import { download, exportDir, getManifest, postExport, readRows, waitForJob, type PlainRow } from '../helpers/exports.js'
import { openPartnerApi, type PartnerApi } from '../helpers/partner-api.js'
import { DIALECTS } from '../helpers/stores.js'

/**
 * Kept current (docs/exports.md "Keeping the warehouse current"): an import committed while an
 * export reads is wholly absent from its snapshot, the manifest's cursor yields exactly that
 * import's events, and an export with changed_since_cursor holds exactly the rows they touched,
 * with a cursor after which nothing is left.
 */

const QUIET = { info: () => {}, warn: () => {}, error: () => {} }
const dataset = generateDataset({ seed: 11, start: '2026-01-01', days: 40 })
const IMPORT = [
  '{"kind":"daily","platform":"fb","account_id":100,"date":"2026-01-05","views":999999,"revenue":12.34}',
  '{"kind":"daily","platform":"fb","account_id":100,"date":"2026-03-01","views":5,"followers":77}',
].join('\n') + '\n'

async function runImport (api: PartnerApi): Promise<void> {
  await importSources(api.test.store, [streamSource(Readable.from([IMPORT]), 'restated.ndjson')])
}

async function changesAfter (api: PartnerApi, cursor: string): Promise<Array<{ type: string, data: { accounts?: unknown } }>> {
  const page = await api.get<{ data: Array<{ type: string, data: { accounts?: unknown } }> }>('/changes', { cursor })
  assert.equal(page.status, 200, JSON.stringify(page.body))
  return page.body.data
}

async function rowsOf (api: PartnerApi, files: Array<{ url: string }>): Promise<PlainRow[]> {
  const rows: PlainRow[] = []
  for (const file of files) rows.push(...await readRows((await download(api.app, api.auth, file.url)).bytes, 'ndjson', 'gzip', {}))
  return rows
}

for (const dialect of DIALECTS) {
  describe(`exports kept current (${dialect})`, () => {
    let api: PartnerApi
    before(async () => {
      api = await openPartnerApi(dialect, {
        brandIds: [1, 2],
        seed: async (test) => { await insertDatasetAndReadModel(test.store, dataset) },
        env: { EXPORT_DIR: exportDir() },
        exports: { pollMs: 50, leaseMs: 3000 },
      })
    })
    after(async () => {
      await api.app.services.exports.worker.stop(1000)
      await api.close()
    })

    it('reads one snapshot: an import committed while it reads is wholly absent', async () => {
      const snapshot = await openSnapshot(api.test.store)
      try {
        await runImport(api)
        const rows: unknown[][] = []
        for await (const batch of snapshot.batches(dailyRowsQuery(api.test.store.db, api.partner.userId, { dataset: 'daily', format: 'ndjson', compression: 'gzip' }), 100)) rows.push(...batch)
        const fb100 = rows.filter((row) => row[2] === 'fb' && Number(row[3]) === 100)
        assert.ok(!fb100.some((row) => row[0] === '2026-03-01'), 'the new day is not in the snapshot')
        assert.ok(!fb100.some((row) => Number(row[5]) === 999999), 'the restated day is not in the snapshot')
        const clock = await api.test.store.db.selectFrom('change_clock').selectAll().executeTakeFirstOrThrow()
        assert.ok(Number(clock.last_event_id) > snapshot.lastEventId, 'the import\'s events come after the snapshot')
      } finally {
        await snapshot.close()
      }
    })

    it('the manifest\'s cursor yields exactly the changes its files lack; changed_since_cursor exports exactly their rows', async () => {
      api.app.services.exports.worker.start(QUIET)
      const full = await waitForJob(api.app, api.auth, (await postExport(api.app, api.auth, { dataset: 'daily', format: 'ndjson' })).body.id)
      assert.equal(full.status, 'succeeded', JSON.stringify(full.error))
      const manifest = await getManifest(api.app, api.auth, full.id)
      assert.deepEqual(await changesAfter(api, manifest.changes_cursor), [])
      const before = await rowsOf(api, manifest.files)
      assert.ok(before.some((row) => row.platform === 'fb' && row.account_id === 100 && row.views === 999999), 'the first import is in the full export')

      // A second import of the same two days, one of which differs from the store now: the feed
      // after the manifest's cursor names that one day (an unchanged row is no change).
      await api.test.store.db.updateTable('daily_metrics').set({ views: 1 }).where('platform', '=', 'fb').where('account_id', '=', 100).where('date', '=', '2026-01-05').execute()
      await runImport(api)
      const events = await changesAfter(api, manifest.changes_cursor)
      assert.deepEqual(events.map((event) => event.type), ['analytics.updated'])

      const incremental = await postExport(api.app, api.auth, { dataset: 'daily', format: 'ndjson', changed_since_cursor: manifest.changes_cursor })
      assert.equal(incremental.status, 202, JSON.stringify(incremental.body))
      assert.equal(incremental.body.changed_since_cursor, manifest.changes_cursor)
      const job = await waitForJob(api.app, api.auth, incremental.body.id)
      assert.equal(job.status, 'succeeded', JSON.stringify(job.error))
      const next = await getManifest(api.app, api.auth, job.id)
      assert.deepEqual(next.files.map((file) => file.name), ['daily-changes.ndjson.gz'])
      const rows = await rowsOf(api, next.files)
      assert.deepEqual(rows.map((row) => [row.date, row.platform, row.account_id, row.views, row.revenue]), [
        ['2026-01-05', 'fb', 100, 999999, 12.34],
      ])
      assert.deepEqual(await changesAfter(api, next.changes_cursor), [])
    })
  })
}
