import { after, afterEach, before, beforeEach, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { insertEvents, takeChangeNumbers } from '../../src/storage/changes/change-log.repository.js'
import { revokeBrands, setUserDisabled } from '../../src/services/users/users.service.js'
import { insertBrandsWithAccounts } from '../helpers/fixtures.js'
import { openPartnerApi, type PartnerApi } from '../helpers/partner-api.js'
import { sleep, waitFor } from '../helpers/processes.js'
import { DIALECTS } from '../helpers/stores.js'
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js'
import { QUIET, createWebhook, deliveryLog, partnerWithToken, record } from './webhook-fixtures.js'

/**
 * What one partner's endpoint or grants do to deliveries, on both stores: a hanging endpoint holds
 * its own slots only — another partner's deliveries all succeed while its requests are still held
 * (shown by that order, not by timing them) — and times out at the limit, then gets one attempt at
 * a time; a revoked partner gets none of the brand's
 * later events (not queued, and not sent if queued before the revocation); a disabled endpoint
 * or user holds its deliveries; the replicas' hook holds events of syncs a replica has not seen.
 */

const ENV = { WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_RETRY_SCHEDULE: '10m' }
/** A generous bound for what must happen at all (a busy machine), not a measure of speed. */
const BOUND_MS = 30_000
const brandRenamed = (brandId: number, name: string) => ({ type: 'brand.updated' as const, data: { brand_id: brandId, brand_name: name, change: 'renamed' as const } })

for (const dialect of DIALECTS) {
  describe(`webhook isolation (${dialect})`, () => {
    let api: PartnerApi
    let receiver: Receiver
    let syncLimit: number | undefined

    before(async () => {
      api = await openPartnerApi(dialect, {
        seed: async (test) => { await insertBrandsWithAccounts(test.store.db, [{ brand_id: 1 }, { brand_id: 2 }]) },
        brandIds: [1, 2],
        env: ENV,
        // Attempts time out after 1.5 s here (10 s in service), so the hanging case ends quickly.
        webhooks: { timeoutMs: 1500, visibleThroughSyncId: () => syncLimit },
      })
    })
    after(async () => { await api.close() })
    beforeEach(async () => {
      receiver = await startReceiver()
      syncLimit = undefined
    })
    afterEach(async () => {
      await api.app.services.webhooks.worker.stop(500)
      await receiver.close()
    })

    it('a hanging endpoint times out at the limit, then gets one attempt at a time', async () => {
      receiver.on('/hangs', { hang: true })
      const slow = await partnerWithToken(api.app, api.test.store, [1])
      const hanging = await createWebhook(api.app, slow.auth, { url: `${receiver.origin}/hangs`, events: ['brand.updated'] })
      api.app.services.webhooks.worker.start(QUIET)
      await record(api.test.store, Array.from({ length: 12 }, (_, i) => brandRenamed(1, `Name ${i}`)))
      // Its per-endpoint share under way (its first attempt waited for, not assumed to have started), and no more.
      await waitFor('the hanging endpoint\'s first attempt', () => receiver.at('/hangs').length >= 1, BOUND_MS)
      assert.ok(receiver.at('/hangs').length <= 4, String(receiver.at('/hangs').length))

      // Bounded generously: 1.5 s to time out, then the outcome's write, on a machine that may be busy.
      await waitFor('the first timeouts recorded', async () => (await deliveryLog(api.app, slow.auth, hanging.id, { status: 'pending' })).data.some((delivery) => delivery.attempt_count > 0), BOUND_MS)
      const attempted = (await deliveryLog(api.app, slow.auth, hanging.id, { limit: '100' })).data.filter((delivery) => delivery.attempt_count > 0)
      for (const delivery of attempted) {
        const [attempt] = delivery.attempts
        assert.equal(attempt?.http_status, null)
        assert.equal(attempt?.error, 'timeout: no answer in time')
        // Cut at the limit, not before it (a busy machine can only make it later).
        assert.ok((attempt?.duration_ms ?? 0) >= 1400, String(attempt?.duration_ms))
        // Retried on the schedule (10 minutes here), not at once.
        assert.ok(Date.parse(delivery.next_attempt_at ?? '') - Date.now() > 8 * 60_000, delivery.next_attempt_at ?? 'no next attempt')
      }
      // The sender cut those requests itself (its timeout), and after a timeout the endpoint gets
      // one attempt at a time: the next ones come singly.
      assert.ok(receiver.cut('/hangs') >= 1, `${receiver.cut('/hangs')} requests cut`)
      const before = receiver.at('/hangs').length
      await sleep(2000)
      assert.ok(receiver.at('/hangs').length - before <= 2, `${receiver.at('/hangs').length - before} new attempts in 2 s`)
      assert.equal(api.app.services.webhooks.worker.inFlight() <= 1, true, `${api.app.services.webhooks.worker.inFlight()} attempts under way`)
    })

    it('a partner revoked from a brand receives none of its later events, and none queued before the revocation', async () => {
      const partner = await partnerWithToken(api.app, api.test.store, [1, 2])
      const hook = await createWebhook(api.app, partner.auth, { url: `${receiver.origin}/revoked`, events: ['brand.updated'] })
      // Queued while the partner saw brand 1, but not yet sent (the worker is not running).
      await record(api.test.store, [brandRenamed(1, 'Before')])
      await revokeBrands(api.test.store.db, partner.userId, [1])
      await record(api.test.store, [brandRenamed(1, 'After'), brandRenamed(2, 'Still seen')])
      api.app.services.webhooks.worker.start(QUIET)

      await waitFor('brand 2\'s event', () => receiver.at('/revoked').length >= 1, BOUND_MS)
      await sleep(800)
      assert.deepEqual(receiver.at('/revoked').map((delivery) => JSON.parse(delivery.body).data), [{ brand_id: 2, brand_name: 'Still seen', change: 'renamed' }])
      // Brand 2's outcome is written a moment after its receiver answered (group commit): waited for.
      await waitFor('brand 2\'s outcome written', async () => (await deliveryLog(api.app, partner.auth, hook.id)).data[0]?.status === 'succeeded', BOUND_MS)
      const log = await deliveryLog(api.app, partner.auth, hook.id)
      // The later brand-1 event was never queued; the earlier one was skipped, with the reason.
      assert.deepEqual(log.data.map((delivery) => [delivery.status, delivery.skip_reason, delivery.attempt_count]), [
        ['succeeded', null, 1],
        ['skipped', 'brand_not_visible', 0],
      ])
    })

    it('a disabled endpoint gets no new deliveries and holds its pending ones until enabled', async () => {
      const hook = await createWebhook(api.app, api.auth, { url: `${receiver.origin}/paused`, events: ['brand.updated'] })
      await record(api.test.store, [brandRenamed(2, 'Queued before')])
      const disabled = await api.app.inject({ method: 'PATCH', url: `/webhooks/${hook.id}`, headers: api.auth, payload: { status: 'disabled' } })
      assert.equal(disabled.statusCode, 200)
      assert.equal(disabled.json().disabled_by, 'partner')
      await record(api.test.store, [brandRenamed(2, 'While disabled')])
      api.app.services.webhooks.worker.start(QUIET)
      await sleep(800)
      assert.equal(receiver.at('/paused').length, 0)
      assert.equal((await api.app.inject({ method: 'GET', url: `/webhooks/${hook.id}`, headers: api.auth })).json().pending_deliveries, 1)

      const enabled = await api.app.inject({ method: 'PATCH', url: `/webhooks/${hook.id}`, headers: api.auth, payload: { status: 'enabled' } })
      assert.equal(enabled.json().status, 'enabled')
      await waitFor('the held delivery', () => receiver.at('/paused').length === 1, BOUND_MS)
      await sleep(500)
      assert.deepEqual(receiver.at('/paused').map((delivery) => JSON.parse(delivery.body).data.brand_name), ['Queued before'])
    })

    it('a disabled user\'s deliveries wait until it is enabled again', async () => {
      const partner = await partnerWithToken(api.app, api.test.store, [2])
      await createWebhook(api.app, partner.auth, { url: `${receiver.origin}/user-off`, events: ['brand.updated'] })
      await setUserDisabled(api.test.store.db, partner.userId, true)
      api.app.services.webhooks.worker.start(QUIET)
      await record(api.test.store, [brandRenamed(2, 'Held')])
      await sleep(800)
      assert.equal(receiver.at('/user-off').length, 0)
      await setUserDisabled(api.test.store.db, partner.userId, false)
      await waitFor('sent once enabled', () => receiver.at('/user-off').length === 1, BOUND_MS)
    })

    it('holds events of a sync above visibleThroughSyncId until it reaches them; events without a sync are not held', async () => {
      const hook = await createWebhook(api.app, api.auth, { url: `${receiver.origin}/replica`, events: ['brand.updated', 'access.granted'] })
      syncLimit = 0
      api.app.services.webhooks.worker.start(QUIET)
      let syncId = 0
      await api.test.store.db.transaction().execute(async (trx) => {
        const numbers = await takeChangeNumbers(trx, { sync: true, eventCount: 1 })
        syncId = numbers.syncId ?? 0
        await insertEvents(trx, { firstEventId: numbers.firstEventId, syncId: numbers.syncId, createdAt: '2026-11-25T10:00:00Z' }, [brandRenamed(1, 'From a sync')])
      })
      syncLimit = syncId - 1
      await record(api.test.store, [{ type: 'access.granted', userId: api.partner.userId, data: { brand_id: 2 } }])
      await waitFor('the access event, which has no sync', () => receiver.at('/replica').length === 1, BOUND_MS)
      await sleep(800)
      assert.deepEqual(receiver.at('/replica').map((delivery) => JSON.parse(delivery.body).type), ['access.granted'])
      // The access event's outcome is written a moment after its receiver answered (group
      // commit): waited for, so the one delivery still pending is the held one.
      await waitFor('the access event\'s outcome written', async () => (await deliveryLog(api.app, api.auth, hook.id, { status: 'succeeded' })).data.length === 1, BOUND_MS)
      assert.equal((await deliveryLog(api.app, api.auth, hook.id, { status: 'pending' })).data.length, 1)

      syncLimit = syncId
      await waitFor('the sync\'s event once replicas have it', () => receiver.at('/replica').length === 2, BOUND_MS)
      assert.equal(JSON.parse(receiver.at('/replica')[1]?.body ?? '{}').sync_id, syncId)
    })
  })

  describe(`a held endpoint beside another partner (${dialect})`, () => {
    let api: PartnerApi
    let receiver: Receiver

    before(async () => {
      receiver = await startReceiver()
      api = await openPartnerApi(dialect, {
        seed: async (test) => { await insertBrandsWithAccounts(test.store.db, [{ brand_id: 1 }, { brand_id: 2 }]) },
        brandIds: [1, 2],
        env: ENV,
        // Far longer than any wait here: the held requests end only when the test lets them go.
        webhooks: { timeoutMs: 120_000 },
      })
    })
    after(async () => {
      await api.app.services.webhooks.worker.stop(500)
      await api.close()
      await receiver.close()
    })

    it('another partner\'s deliveries all succeed while a held endpoint\'s requests are still open: they wait for none of them', async (t) => {
      receiver.on('/held', { hold: true })
      const slow = await partnerWithToken(api.app, api.test.store, [1])
      await createWebhook(api.app, slow.auth, { url: `${receiver.origin}/held`, events: ['brand.updated'] })
      const other = await partnerWithToken(api.app, api.test.store, [2])
      const fine = await createWebhook(api.app, other.auth, { url: `${receiver.origin}/fine`, events: ['brand.updated'] })
      api.app.services.webhooks.worker.start(QUIET)
      await record(api.test.store, Array.from({ length: 12 }, (_, i) => brandRenamed(1, `Held ${i}`)))
      // The held endpoint's per-endpoint share (4) under way, and no more: it holds them from here on.
      await waitFor('the held endpoint\'s share under way', () => receiver.open('/held') === 4, BOUND_MS)

      await record(api.test.store, Array.from({ length: 12 }, (_, i) => brandRenamed(2, `Fine ${i}`)))
      const recorded = Date.now()
      await waitFor('the other partner\'s 12 deliveries, each succeeded', async () => {
        const log = await deliveryLog(api.app, other.auth, fine.id, { limit: '100' })
        return log.data.length === 12 && log.data.every((delivery) => delivery.status === 'succeeded')
      }, BOUND_MS)
      t.diagnostic(`${dialect}: the other partner's 12 deliveries succeeded ${Date.now() - recorded} ms after they were recorded (information, not asserted)`)
      assert.deepEqual((await deliveryLog(api.app, other.auth, fine.id, { limit: '100' })).data.map((delivery) => delivery.attempt_count), Array.from({ length: 12 }, () => 1))
      assert.equal(receiver.at('/fine').length, 12)
      // All served while the held requests stayed open: none ended or was cut, so none followed them.
      assert.equal(receiver.open('/held'), 4, 'the held requests are all still open')
      assert.equal(receiver.at('/held').length, 4, 'no request of the held endpoint ended, so none followed')
      assert.equal(receiver.cut('/held'), 0)

      receiver.release('/held')
      await waitFor('the held endpoint\'s deliveries once let go', () => receiver.at('/held').length === 12, BOUND_MS)
    })
  })
}
