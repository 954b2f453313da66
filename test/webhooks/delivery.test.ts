import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { verifyWebhook } from '../../packages/client/src/webhooks.js'
import { renderChangeEvent } from '../../src/domain/changes.js'
import { insertBrandsWithAccounts } from '../helpers/fixtures.js'
import { openPartnerApi, type PartnerApi } from '../helpers/partner-api.js'
import { waitFor } from '../helpers/processes.js'
import { DIALECTS } from '../helpers/stores.js'
import { independentlyVerified, startReceiver, type Receiver } from '../helpers/webhook-receiver.js'
import { QUIET, createWebhook, deliveryLog, partnerWithToken, record } from './webhook-fixtures.js'

/**
 * Events recorded → signed deliveries on a real receiver (127.0.0.1), on both stores: one per
 * subscribed endpoint whose partner sees the event, with the feed's own bytes (how soon is the
 * benchmark's business, `npm run bench:webhooks`; here a generous bound only says it happens); every
 * signature checked by the client's verifyWebhook and by an independent implementation. Then the
 * retry schedule (500, 500, 200), a rolled-back transaction, the webhook.test event, a secret
 * rotation (two signatures) and redelivery.
 */

const ENV = { WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_RETRY_SCHEDULE: '200ms,200ms' }
/** A generous bound for what must happen at all (a busy machine), not a measure of speed. */
const BOUND_MS = 30_000

for (const dialect of DIALECTS) {
  describe(`webhook delivery (${dialect})`, () => {
    let api: PartnerApi
    let receiver: Receiver

    before(async () => {
      receiver = await startReceiver()
      api = await openPartnerApi(dialect, {
        seed: async (test) => { await insertBrandsWithAccounts(test.store.db, [{ brand_id: 1 }, { brand_id: 2 }, { brand_id: 3 }]) },
        brandIds: [1, 2],
        env: ENV,
      })
      api.app.services.webhooks.worker.start(QUIET)
    })
    after(async () => {
      await api.close()
      await receiver.close()
    })

    it('sends each event once to every subscribed endpoint whose partner sees it, signed', async (t) => {
      const all = await createWebhook(api.app, api.auth, { url: `${receiver.origin}/a-all` })
      const postsOnly = await createWebhook(api.app, api.auth, { url: `${receiver.origin}/a-posts`, events: ['posts.updated'] })
      const other = await partnerWithToken(api.app, api.test.store, [2])
      const otherHook = await createWebhook(api.app, other.auth, { url: `${receiver.origin}/b-all` })
      const blind = await partnerWithToken(api.app, api.test.store, [3])
      await createWebhook(api.app, blind.auth, { url: `${receiver.origin}/c-all`, events: ['analytics.updated', 'posts.updated'] })

      const first = (await api.test.store.db.selectFrom('change_clock').select('last_event_id').executeTakeFirstOrThrow()).last_event_id + 1
      await record(api.test.store, [
        { type: 'analytics.updated', data: { brand_id: 1, accounts: [{ platform: 'fb', account_id: 10, dates: [{ since: '2026-11-01', until: '2026-11-03' }] }] } },
        { type: 'posts.updated', data: { brand_id: 2, accounts: [{ platform: 'ig', account_id: 20, posts_added: 2, posts_changed: 1 }] } },
        { type: 'brand.updated', data: { brand_id: 3, brand_name: 'Gamma', change: 'renamed' } },
        { type: 'access.granted', userId: api.partner.userId, data: { brand_id: 1 } },
      ])
      const committed = Date.now()
      const ids = (path: string) => receiver.at(path).map((delivery) => delivery.headers['webhook-id']).sort()
      const expected: Record<string, string[]> = {
        '/a-all': [`evt_${first}`, `evt_${first + 1}`, `evt_${first + 3}`],
        '/a-posts': [`evt_${first + 1}`],
        '/b-all': [`evt_${first + 1}`],
        // brand 3's rename goes to nobody subscribed to brand.updated; its partner took analytics and posts only.
        '/c-all': [],
      }
      await waitFor('every delivery', () => Object.entries(expected).every(([path, want]) => ids(path).length >= want.length), BOUND_MS)
      t.diagnostic(`${dialect}: the last delivery arrived ${Math.max(...receiver.received.map((delivery) => delivery.receivedAt)) - committed} ms after the commit (information, not asserted)`)
      // Nothing more arrives after a further poll or two.
      await new Promise((resolve) => setTimeout(resolve, 600))
      for (const [path, want] of Object.entries(expected)) assert.deepEqual(ids(path), want.sort(), path)

      const events = await api.test.store.db.selectFrom('change_events').selectAll().where('event_id', '>=', first).orderBy('event_id').execute()
      const secrets: Record<string, string> = { '/a-all': all.secret, '/a-posts': postsOnly.secret, '/b-all': otherHook.secret }
      for (const delivery of receiver.received) {
        const secret = secrets[delivery.path] ?? ''
        // The body is the feed's rendering of the event, byte for byte.
        const event = events.find((row) => `evt_${row.event_id}` === delivery.headers['webhook-id'])
        assert.ok(event !== undefined)
        assert.equal(delivery.body, renderChangeEvent({ eventNumber: Number(event.event_id), type: event.type, createdAt: '2026-11-25T10:00:00Z', syncId: null, data: event.data }))
        assert.equal(delivery.headers['content-type'], 'application/json')
        assert.match(String(delivery.headers['user-agent']), /^PartnerAnalytics-Webhooks\//)
        assert.match(String(delivery.headers['webhook-signature']), /^v1,[A-Za-z0-9+/]{43}=$/)
        assert.equal(independentlyVerified(secret, delivery.headers, delivery.body), true, delivery.path)
        assert.deepEqual(verifyWebhook(secret, delivery.headers, delivery.body), JSON.parse(delivery.body))
        // Another endpoint's secret does not verify it.
        assert.equal(independentlyVerified(otherHook.secret === secret ? all.secret : otherHook.secret, delivery.headers, delivery.body), false)
      }

      // Each outcome is written a moment after its receiver answered (group commit), so the log may
      // still say pending when the bodies have arrived: waited for, not read after a fixed pause.
      let log = await deliveryLog(api.app, api.auth, all.id)
      await waitFor('the log of /a-all says delivered', async () => {
        log = await deliveryLog(api.app, api.auth, all.id)
        return log.data.length === 3 && log.data.every((delivery) => delivery.status !== 'pending')
      }, 15_000)
      assert.deepEqual(log.data.map((delivery) => [delivery.id, delivery.event_id, delivery.status, delivery.attempt_count]), [
        [`dlv_${first + 3}`, `evt_${first + 3}`, 'succeeded', 1],
        [`dlv_${first + 1}`, `evt_${first + 1}`, 'succeeded', 1],
        [`dlv_${first}`, `evt_${first}`, 'succeeded', 1],
      ])
      assert.equal(log.data[0]?.attempts[0]?.http_status, 200)
      assert.equal(log.data[0]?.attempts[0]?.response_body_excerpt, 'ok')
      assert.equal(log.data[0]?.next_attempt_at, null)
      // Successes leave the endpoints' failure clock unset (the 3-day rule counts from a failure only).
      const clocks = await api.test.store.db.selectFrom('webhook_endpoints').select('failing_since').where('endpoint_id', 'in', [all.id, postsOnly.id, otherHook.id]).execute()
      assert.deepEqual(clocks.map((row) => row.failing_since), [null, null, null])
    })

    it('retries on the schedule: 500, 500, then 200 is three attempts, then delivered, all in the log', async () => {
      receiver.on('/flaky', { statuses: [500, 500, 200] })
      const hook = await createWebhook(api.app, api.auth, { url: `${receiver.origin}/flaky`, events: ['brand.updated'] })
      await record(api.test.store, [{ type: 'brand.updated', data: { brand_id: 1, brand_name: 'Alpha', change: 'renamed' } }])
      await waitFor('three attempts', () => receiver.at('/flaky').length >= 3, BOUND_MS)
      const bodies = new Set(receiver.at('/flaky').map((delivery) => `${String(delivery.headers['webhook-id'])} ${delivery.body}`))
      assert.equal(bodies.size, 1, 'every attempt carries the same event and webhook-id')
      await waitFor('the log says succeeded', async () => (await deliveryLog(api.app, api.auth, hook.id)).data[0]?.status === 'succeeded', BOUND_MS)
      const [delivery] = (await deliveryLog(api.app, api.auth, hook.id)).data
      assert.equal(delivery?.attempt_count, 3)
      assert.deepEqual(delivery?.attempts.map((attempt) => [attempt.http_status, attempt.error, attempt.response_body_excerpt]), [
        [200, null, 'ok'],
        [500, 'HTTP 500', 'status 500'],
        [500, 'HTTP 500', 'status 500'],
      ])
      assert.ok(delivery?.attempts.every((attempt) => attempt.duration_ms >= 0 && /Z$/.test(attempt.attempted_at)))
      assert.equal(receiver.at('/flaky').length, 3)
      // The waits between attempts follow the schedule (200 ms ± 10 %), as a bound, not a measure.
      const times = receiver.at('/flaky').map((entry) => entry.receivedAt)
      assert.ok((times[1] ?? 0) - (times[0] ?? 0) >= 170 && (times[2] ?? 0) - (times[1] ?? 0) >= 170, String(times))
    })

    it('marks a delivery failed once every attempt of the schedule failed', async () => {
      receiver.on('/down', { statuses: [503] })
      const hook = await createWebhook(api.app, api.auth, { url: `${receiver.origin}/down`, events: ['brand.updated'] })
      await record(api.test.store, [{ type: 'brand.updated', data: { brand_id: 2, brand_name: 'Beta', change: 'renamed' } }])
      await waitFor('failed', async () => (await deliveryLog(api.app, api.auth, hook.id)).data[0]?.status === 'failed', BOUND_MS)
      const [delivery] = (await deliveryLog(api.app, api.auth, hook.id)).data
      assert.equal(delivery?.attempt_count, 3)
      assert.equal(delivery?.next_attempt_at, null)
      assert.equal(receiver.at('/down').length, 3)
      const failed = await deliveryLog(api.app, api.auth, hook.id, { status: 'failed' })
      assert.equal(failed.data.length, 1)
      assert.equal((await deliveryLog(api.app, api.auth, hook.id, { status: 'succeeded' })).data.length, 0)

      // Redelivery queues it again now with a fresh schedule: the endpoint is back.
      receiver.on('/down', { statuses: [200] })
      const redelivered = await api.app.inject({ method: 'POST', url: `/webhooks/${hook.id}/deliveries/${delivery?.id ?? ''}/redeliver`, headers: api.auth })
      assert.equal(redelivered.statusCode, 202)
      assert.equal(redelivered.json().status, 'pending')
      await waitFor('redelivered', async () => (await deliveryLog(api.app, api.auth, hook.id)).data[0]?.status === 'succeeded', BOUND_MS)
      assert.equal(receiver.at('/down').length, 4)
      assert.equal(new Set(receiver.at('/down').map((entry) => entry.headers['webhook-id'])).size, 1, 'the same webhook-id: receivers dedupe by it')
      assert.equal((await deliveryLog(api.app, api.auth, hook.id)).data[0]?.attempt_count, 4)
    })

    it('sends nothing for events of a rolled-back transaction', async () => {
      const hook = await createWebhook(api.app, api.auth, { url: `${receiver.origin}/rollback` })
      await assert.rejects(api.test.store.db.transaction().execute(async (trx) => {
        const { recordEvents } = await import('../../src/storage/changes/change-log.repository.js')
        await recordEvents(trx, [{ type: 'brand.updated', data: { brand_id: 1, brand_name: 'Never', change: 'renamed' } }], '2026-11-25T10:00:00Z')
        throw new Error('the import failed')
      }), /the import failed/)
      // Nothing of it was queued: the webhook's log holds only the event committed after it, once
      // that one is delivered (not "nothing arrived within some time").
      await record(api.test.store, [{ type: 'brand.updated', data: { brand_id: 1, brand_name: 'Committed', change: 'renamed' } }])
      await waitFor('the committed event delivered', async () => (await deliveryLog(api.app, api.auth, hook.id)).data[0]?.status === 'succeeded', BOUND_MS)
      const log = await deliveryLog(api.app, api.auth, hook.id)
      assert.deepEqual(log.data.map((delivery) => [delivery.event_type, delivery.status]), [['brand.updated', 'succeeded']])
      assert.deepEqual(receiver.at('/rollback').map((delivery) => JSON.parse(delivery.body).data.brand_name), ['Committed'])
    })

    it('sends webhook.test on request, whatever the endpoint subscribed to', async () => {
      const hook = await createWebhook(api.app, api.auth, { url: `${receiver.origin}/test-event`, events: ['posts.updated'] })
      const response = await api.app.inject({ method: 'POST', url: `/webhooks/${hook.id}/test`, headers: api.auth })
      assert.equal(response.statusCode, 202)
      const queued = response.json()
      assert.equal(queued.event_type, 'webhook.test')
      assert.equal(queued.status, 'pending')
      await waitFor('the test event', () => receiver.at('/test-event').length === 1, BOUND_MS)
      const [delivery] = receiver.at('/test-event')
      assert.equal(delivery?.headers['webhook-id'], queued.event_id)
      const event = verifyWebhook(hook.secret, delivery?.headers ?? {}, delivery?.body ?? '')
      assert.deepEqual(event, { id: queued.event_id, type: 'webhook.test', created_at: event.created_at, sync_id: null, data: { webhook_id: hook.id } })
      assert.match(event.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/)
    })

    it('signs with the new and the previous secret for 24 hours after a rotation', async () => {
      const hook = await createWebhook(api.app, api.auth, { url: `${receiver.origin}/rotated` })
      const rotated = await api.app.inject({ method: 'POST', url: `/webhooks/${hook.id}/rotate-secret`, headers: api.auth })
      assert.equal(rotated.statusCode, 200)
      const { secret, previous_secret_expires_at: until } = rotated.json()
      assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/)
      assert.notEqual(secret, hook.secret)
      const expiresIn = Date.parse(until) - Date.now()
      assert.ok(expiresIn > 23.9 * 3_600_000 && expiresIn <= 24 * 3_600_000, until)
      await api.app.inject({ method: 'POST', url: `/webhooks/${hook.id}/test`, headers: api.auth })
      await waitFor('delivered', () => receiver.at('/rotated').length === 1, BOUND_MS)
      const [delivery] = receiver.at('/rotated')
      assert.equal(String(delivery?.headers['webhook-signature']).split(' ').length, 2)
      for (const key of [secret, hook.secret]) {
        assert.equal(independentlyVerified(key, delivery?.headers ?? {}, delivery?.body ?? ''), true)
        assert.doesNotThrow(() => verifyWebhook(key, delivery?.headers ?? {}, delivery?.body ?? ''))
      }
      // The secret is never shown again.
      const shown = await api.app.inject({ method: 'GET', url: `/webhooks/${hook.id}`, headers: api.auth })
      assert.equal(shown.json().secret, undefined)
      assert.ok(!shown.body.includes(secret) && !shown.body.includes(hook.secret))
    })
  })
}
