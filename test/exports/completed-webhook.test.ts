import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { CHANGE_EVENT_TYPES } from '../../src/domain/changes.js'
import { generateDataset, insertDatasetAndReadModel } from '../helpers/analytics-fixtures.js'
import { exportDir, getManifest, postExport, waitForJob } from '../helpers/exports.js'
import { openPartnerApi, type PartnerApi } from '../helpers/partner-api.js'
import { waitFor } from '../helpers/processes.js'
import { DIALECTS } from '../helpers/stores.js'
import { independentlyVerified, startReceiver, type Receiver } from '../helpers/webhook-receiver.js'
import { QUIET, createWebhook, deliveryLog, partnerWithToken, record } from '../webhooks/webhook-fixtures.js'

/**
 * The export.completed webhook event (docs/exports.md "Keeping the warehouse current",
 * docs/webhooks.md "Events and payloads"), on both stores, against a real receiver on 127.0.0.1:
 * a succeeded job sends exactly one signed event to each of its owner's webhooks subscribed to
 * export.completed, with the job, its size, the manifest's path and a cursor that continues the
 * change feed exactly where the manifest's does; another partner's webhooks (sharing the brand)
 * receive none of it; failed and cancelled jobs send nothing; a webhook registered without
 * `events` does not take it (the default stays the change feed's types), and the feed never
 * shows it.
 */

const dataset = generateDataset({ seed: 29, start: '2026-01-01', days: 45 })
// Daily of every brand holds ~400 rows: over the limit (TOO_LARGE); the accounts dataset is 12 rows.
const ENV = { WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_RETRY_SCHEDULE: '200ms,200ms', EXPORT_MAX_ROWS: '100', TOKEN_TTL_SECONDS: '1000000' }

interface ExportCompletedBody {
  id: string
  type: string
  created_at: string
  sync_id: null
  data: { export_id: string, dataset: string, format: string, compression: string, rows: number, file_count: number, manifest_url: string, changes_cursor: string }
}

for (const dialect of DIALECTS) {
  describe(`export.completed webhook event (${dialect})`, () => {
    let api: PartnerApi
    let receiver: Receiver
    const completedRows = async (endpointId: string): Promise<number> => (await api.test.store.db.selectFrom('webhook_deliveries').select('event_id')
      .where('endpoint_id', '=', endpointId).where('event_type', '=', 'export.completed').execute()).length

    before(async () => {
      receiver = await startReceiver()
      api = await openPartnerApi(dialect, {
        brandIds: [1, 2],
        seed: async (test) => { await insertDatasetAndReadModel(test.store, dataset) },
        env: { ...ENV, EXPORT_DIR: exportDir() },
        exports: { pollMs: 50, leaseMs: 3000 },
      })
      api.app.services.webhooks.worker.start(QUIET)
      api.app.services.exports.worker.start(QUIET)
    })
    after(async () => {
      await api.close()
      await receiver.close()
    })

    it('sends one signed event per succeeded job to the owner\'s subscribed webhooks only, with the manifest\'s path and cursor', async () => {
      const owner = await createWebhook(api.app, api.auth, { url: `${receiver.origin}/owner`, events: ['export.completed'] })
      assert.deepEqual(owner.body.events, ['export.completed'])
      const both = await createWebhook(api.app, api.auth, { url: `${receiver.origin}/owner-both`, events: ['access.granted', 'export.completed'] })
      assert.deepEqual(both.body.events, ['access.granted', 'export.completed'], 'the documented order: the feed\'s types, then export.completed')
      // Registered without events: every type of the change feed, as before — export.completed is asked for by name.
      const defaults = await createWebhook(api.app, api.auth, { url: `${receiver.origin}/owner-default` })
      assert.deepEqual(defaults.body.events, [...CHANGE_EVENT_TYPES])
      // Another partner sharing brand 1, subscribed to everything.
      const other = await partnerWithToken(api.app, api.test.store, [1])
      const otherHook = await createWebhook(api.app, other.auth, { url: `${receiver.origin}/other`, events: [...CHANGE_EVENT_TYPES, 'export.completed'] })

      const created = await postExport(api.app, api.auth, { dataset: 'daily', format: 'csv', brand_id: [1], since: '2026-01-01', until: '2026-01-08' })
      assert.equal(created.status, 202)
      const job = await waitForJob(api.app, api.auth, created.body.id)
      assert.equal(job.status, 'succeeded', JSON.stringify(job.error))
      const manifest = await getManifest(api.app, api.auth, job.id)
      assert.ok(manifest.rows > 0 && manifest.files.length > 0)

      await waitFor('the owner\'s two deliveries', () => receiver.at('/owner').length >= 1 && receiver.at('/owner-both').length >= 1, 10_000)
      for (const [path, hook] of [['/owner', owner], ['/owner-both', both]] as const) {
        // Delivered (a 2xx recorded): nothing further will be sent for it.
        await waitFor(`${path} delivery succeeded`, async () => (await deliveryLog(api.app, api.auth, hook.id)).data.every((delivery) => delivery.status === 'succeeded'), 10_000)
        const [delivery, ...more] = receiver.at(path)
        assert.equal(more.length, 0, `${path}: exactly one delivery`)
        assert.ok(delivery !== undefined)
        assert.ok(independentlyVerified(hook.secret, delivery.headers, delivery.body), `${path}: signed with the webhook's secret`)
        const event = JSON.parse(delivery.body) as ExportCompletedBody
        assert.equal(delivery.headers['webhook-id'], event.id)
        assert.match(event.id, /^evt_[1-9]\d*$/)
        assert.match(event.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
        const { changes_cursor: cursor, ...data } = event.data
        assert.deepEqual({ type: event.type, sync_id: event.sync_id, data }, {
          type: 'export.completed',
          sync_id: null,
          data: { export_id: job.id, dataset: 'daily', format: 'csv', compression: 'gzip', rows: manifest.rows, file_count: manifest.files.length, manifest_url: `/exports/${job.id}/manifest` },
        })
        // The manifest the event points to, read with the owner's token (its cursor is written anew at each read).
        const pointed = await api.get<typeof manifest>(event.data.manifest_url)
        assert.equal(pointed.status, 200)
        assert.deepEqual({ ...pointed.body, changes_cursor: '' }, { ...manifest, changes_cursor: '' })
        assert.equal(typeof cursor, 'string')
      }
      const owned = JSON.parse(receiver.at('/owner')[0]?.body ?? '{}') as ExportCompletedBody
      // Both webhooks got the same event (one webhook-id).
      assert.equal(receiver.at('/owner-both')[0]?.headers['webhook-id'], owned.id)

      // The event's cursor continues the feed exactly where the manifest's does: a change recorded afterwards is the first event of both.
      await record(api.test.store, [{ type: 'access.granted', userId: api.partner.userId, data: { brand_id: 2 } }])
      const fromEvent = await api.get<{ data: Array<{ id: string, type: string }> }>('/changes', { cursor: owned.data.changes_cursor })
      const fromManifest = await api.get<{ data: Array<{ id: string, type: string }> }>('/changes', { cursor: manifest.changes_cursor })
      assert.equal(fromEvent.status, 200, JSON.stringify(fromEvent.body))
      assert.deepEqual(fromEvent.body.data, fromManifest.body.data)
      assert.deepEqual(fromEvent.body.data.map((event) => event.type), ['access.granted'])
      // Webhook-only: the feed never shows an export.completed, nor skips to its number.
      const feed = await api.get<{ data: Array<{ id: string, type: string }> }>('/changes', { cursor: owned.data.changes_cursor, limit: '100' })
      assert.ok(feed.body.data.every((event) => event.type !== 'export.completed'))

      // The owner's default webhook (not subscribed) and the other partner's got nothing of it.
      assert.equal(await completedRows(defaults.id), 0)
      assert.equal(await completedRows(otherHook.id), 0)
      assert.ok(receiver.at('/owner-default').every((delivery) => !delivery.body.includes('export.completed')))
      assert.ok(receiver.at('/other').every((delivery) => !delivery.body.includes('export.completed')))

      // The other partner's own job reaches its own webhook, once, and none of the owner's.
      const otherJob = await postExport(api.app, other.auth, { dataset: 'accounts', format: 'ndjson', compression: 'none' })
      assert.equal((await waitForJob(api.app, other.auth, otherJob.body.id)).status, 'succeeded')
      await waitFor('the other partner\'s delivery', () => receiver.at('/other').some((delivery) => delivery.body.includes('"export.completed"')), 10_000)
      const otherEvent = JSON.parse(receiver.at('/other').find((delivery) => delivery.body.includes('"export.completed"'))?.body ?? '{}') as ExportCompletedBody
      assert.equal(otherEvent.data.export_id, otherJob.body.id)
      assert.equal(otherEvent.data.dataset, 'accounts')
      assert.ok(independentlyVerified(otherHook.secret, receiver.at('/other').find((delivery) => delivery.body.includes('"export.completed"'))?.headers ?? {}, JSON.stringify(otherEvent)))
      assert.equal(await completedRows(otherHook.id), 1)
      assert.equal(await completedRows(owner.id), 1, 'the owner\'s webhook still has its one event')
      assert.equal(receiver.at('/owner').length, 1)
    })

    it('a failed or cancelled job sends nothing; the next succeeded one sends its one event', async () => {
      const hook = await createWebhook(api.app, api.auth, { url: `${receiver.origin}/outcomes`, events: ['export.completed'] })
      // Failed: every brand's daily rows are over EXPORT_MAX_ROWS.
      const failed = await postExport(api.app, api.auth, { dataset: 'daily', format: 'ndjson' })
      const failedJob = await waitForJob(api.app, api.auth, failed.body.id)
      assert.deepEqual([failedJob.status, failedJob.error?.code], ['failed', 'TOO_LARGE'])
      // The outbox is written with the success or not at all: nothing is queued for a failure.
      assert.equal(await completedRows(hook.id), 0)

      // Cancelled while queued: the worker is stopped so that the job cannot start first.
      await api.app.services.exports.worker.stop(1000)
      const cancelled = await postExport(api.app, api.auth, { dataset: 'accounts' })
      const deleted = await api.app.inject({ method: 'DELETE', url: `/exports/${cancelled.body.id}`, headers: api.auth })
      assert.equal(deleted.statusCode, 200)
      assert.equal(deleted.json().status, 'cancelled')
      api.app.services.exports.worker.start(QUIET)

      const succeeded = await postExport(api.app, api.auth, { dataset: 'accounts' })
      assert.equal((await waitForJob(api.app, api.auth, succeeded.body.id)).status, 'succeeded')
      await waitFor('the succeeded job\'s delivery', () => receiver.at('/outcomes').length >= 1, 10_000)
      await waitFor('delivery recorded as succeeded', async () => (await deliveryLog(api.app, api.auth, hook.id)).data.every((delivery) => delivery.status === 'succeeded'), 10_000)
      assert.deepEqual(receiver.at('/outcomes').map((delivery) => (JSON.parse(delivery.body) as ExportCompletedBody).data.export_id), [succeeded.body.id])
      assert.equal(await completedRows(hook.id), 1)
      const log = await deliveryLog(api.app, api.auth, hook.id)
      assert.deepEqual(log.data.map((delivery) => [delivery.event_type, delivery.status, delivery.attempt_count]), [['export.completed', 'succeeded', 1]])
    })
  })
}
