import { after, afterEach, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { YIELDING_CONCURRENCY } from '../../src/services/webhooks/delivery-worker.js'
import { insertBrandsWithAccounts } from '../helpers/fixtures.js'
import { openPartnerApi, type PartnerApi } from '../helpers/partner-api.js'
import { waitFor } from '../helpers/processes.js'
import { DIALECTS } from '../helpers/stores.js'
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js'
import { QUIET, createWebhook, partnerWithToken, record } from './webhook-fixtures.js'

/**
 * Deliveries give way to a busy API, on both stores: while the process's foreground load says
 * busy, at most YIELDING_CONCURRENCY attempts are under way (WEBHOOK_CONCURRENCY allows 32) and
 * every delivery still arrives; once it is no longer busy they run at full width again.
 */

const ENV = { WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_RETRY_SCHEDULE: '10m' }
const ENDPOINTS = 8
const EVENTS = 6
const brandRenamed = (i: number) => ({ type: 'brand.updated' as const, data: { brand_id: 1, brand_name: `Name ${i}`, change: 'renamed' as const } })

for (const dialect of DIALECTS) {
  describe(`webhook deliveries give way to a busy API (${dialect})`, () => {
    let api: PartnerApi
    let receiver: Receiver
    let busy = false

    before(async () => {
      receiver = await startReceiver()
      api = await openPartnerApi(dialect, {
        seed: async (test) => { await insertBrandsWithAccounts(test.store.db, [{ brand_id: 1 }]) },
        brandIds: [1],
        env: ENV,
        webhooks: { foreground: { busy: () => busy } },
      })
      for (let e = 0; e < ENDPOINTS; e++) {
        const partner = await partnerWithToken(api.app, api.test.store, [1])
        await createWebhook(api.app, partner.auth, { url: `${receiver.origin}/${e}`, events: ['brand.updated'] })
        // Every answer takes 150 ms, so attempts overlap as far as the worker lets them.
        receiver.on(`/${e}`, { delayMs: 150 })
      }
    })
    after(async () => {
      await api.close()
      await receiver.close()
    })
    afterEach(async () => { await api.app.services.webhooks.worker.stop(500) })

    it('keeps at most a few attempts under way while the API is busy, and still delivers every one', async () => {
      busy = true
      api.app.services.webhooks.worker.start(QUIET)
      await record(api.test.store, Array.from({ length: EVENTS }, (_, i) => brandRenamed(i)))
      await waitFor('every delivery', () => receiver.received.length === ENDPOINTS * EVENTS, 30_000)
      assert.ok(receiver.maxInFlight() <= YIELDING_CONCURRENCY, `at most ${YIELDING_CONCURRENCY} at once, saw ${receiver.maxInFlight()}`)
    })

    it('runs at full width when the API is not busy', async () => {
      busy = false
      const before = receiver.received.length
      api.app.services.webhooks.worker.start(QUIET)
      await record(api.test.store, Array.from({ length: EVENTS }, (_, i) => brandRenamed(100 + i)))
      await waitFor('every delivery', () => receiver.received.length === before + ENDPOINTS * EVENTS, 30_000)
      assert.ok(receiver.maxInFlight() > YIELDING_CONCURRENCY * 2, `more than ${YIELDING_CONCURRENCY * 2} at once, saw ${receiver.maxInFlight()}`)
    })
  })
}
