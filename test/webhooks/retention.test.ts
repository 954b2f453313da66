import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { insertBrandsWithAccounts } from '../helpers/fixtures.js'
import { openPartnerApi, type PartnerApi } from '../helpers/partner-api.js'
import { DIALECTS } from '../helpers/stores.js'
import { createWebhook, record } from './webhook-fixtures.js'

/**
 * Deliveries are kept as long as the feed keeps events (CHANGES_RETENTION_DAYS): older ones go,
 * with their attempts, in bounded batches; newer ones stay. Both stores.
 */
for (const dialect of DIALECTS) {
  describe(`webhook delivery retention (${dialect})`, () => {
    let api: PartnerApi
    before(async () => {
      api = await openPartnerApi(dialect, {
        seed: async (test) => { await insertBrandsWithAccounts(test.store.db, [{ brand_id: 1 }]) },
        brandIds: [1],
        env: { WEBHOOK_ALLOW_PRIVATE: '1', CHANGES_RETENTION_DAYS: '30' },
      })
    })
    after(async () => { await api.close() })

    it('removes deliveries older than CHANGES_RETENTION_DAYS with their attempts, and keeps the rest', async () => {
      const hook = await createWebhook(api.app, api.auth, { url: 'http://127.0.0.1:9/kept', events: ['brand.updated'] })
      const day = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 19) + 'Z'
      await record(api.test.store, [{ type: 'brand.updated', data: { brand_id: 1, brand_name: 'Old', change: 'renamed' } }], day(31))
      await record(api.test.store, [{ type: 'brand.updated', data: { brand_id: 1, brand_name: 'Recent', change: 'renamed' } }], day(29))
      const rows = await api.test.store.db.selectFrom('webhook_deliveries').select('event_id').where('endpoint_id', '=', hook.id).orderBy('event_id').execute()
      const [oldId, recentId] = rows.map((row) => Number(row.event_id))
      await api.test.store.db.insertInto('webhook_attempts').values({
        endpoint_id: hook.id, event_id: oldId ?? 0, attempt_number: 1, attempted_at: day(31), duration_ms: 5, http_status: 500, error: 'HTTP 500', response_excerpt: null,
      }).execute()

      assert.equal(await api.app.services.webhooks.worker.purgeExpired(), 1)
      const left = await api.test.store.db.selectFrom('webhook_deliveries').select('event_id').where('endpoint_id', '=', hook.id).execute()
      assert.deepEqual(left.map((row) => Number(row.event_id)), [recentId])
      assert.equal((await api.test.store.db.selectFrom('webhook_attempts').selectAll().where('endpoint_id', '=', hook.id).execute()).length, 0)
      assert.equal(await api.app.services.webhooks.worker.purgeExpired(), 0)
    })
  })
}
