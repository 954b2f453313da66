import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { DIALECTS } from '../../../test/helpers/stores.js'
import { waitFor } from '../../../test/helpers/processes.js'
import { startReceiver, type Receiver } from '../../../test/helpers/webhook-receiver.js'
import { ConflictError, NotFoundError, PartnerAnalyticsClient, ValidationError, verifyWebhook } from '../src/index.js'
import { startServer, type RunningServer } from './server.js'

/**
 * The client's webhook methods against a running service (both stores): create (secret once),
 * list, read, change, test (a real delivery, verified), the log, redeliver, rotate, delete; and
 * the service's refusals as the client's typed errors.
 */
for (const dialect of DIALECTS) {
  describe(`client webhook methods (${dialect})`, () => {
    let server: RunningServer
    let receiver: Receiver
    let client: PartnerAnalyticsClient

    before(async () => {
      server = await startServer(dialect, { WEBHOOK_ALLOW_PRIVATE: '1' })
      server.app.services.webhooks.worker.start({ info: () => {}, warn: () => {}, error: () => {} })
      receiver = await startReceiver()
      client = new PartnerAnalyticsClient({ baseUrl: server.baseUrl, clientKey: server.partner.clientKey, secretKey: server.partner.secretKey })
    })
    after(async () => {
      await server.close()
      await receiver.close()
    })

    it('manages a webhook from creation to deletion, with a verified test delivery', async () => {
      const created = await client.createWebhook({ url: `${receiver.origin}/client`, events: ['posts.updated'], description: 'from the client' })
      assert.match(created.secret, /^whsec_/)
      assert.deepEqual((await client.listWebhooks()).data.map((hook) => hook.id), [created.id])
      assert.equal((await client.getWebhook(created.id)).description, 'from the client')
      assert.deepEqual((await client.updateWebhook(created.id, { events: ['analytics.updated', 'posts.updated'] })).events, ['analytics.updated', 'posts.updated'])

      const queued = await client.testWebhook(created.id)
      assert.equal(queued.event_type, 'webhook.test')
      await waitFor('delivered', () => receiver.at('/client').length === 1, 2000)
      const [delivery] = receiver.at('/client')
      assert.equal(verifyWebhook(created.secret, delivery?.headers ?? {}, delivery?.body ?? '').id, queued.event_id)
      await waitFor('logged', async () => (await client.webhookDeliveries(created.id)).data[0]?.status === 'succeeded', 2000)
      const page = await client.webhookDeliveries(created.id, { status: 'succeeded', limit: 10 })
      assert.deepEqual([page.data.length, page.has_more, page.next_cursor], [1, false, null])

      // The answer shows the delivery as queued (read before the worker is woken); what the
      // worker then does is awaited as it happens, never assumed not to have happened yet.
      const again = await client.redeliverWebhookDelivery(created.id, queued.id)
      assert.deepEqual([again.status, again.attempt_count], ['pending', 1])
      await waitFor('redelivered', () => receiver.at('/client').length === 2, 2000)
      await waitFor('the redelivery logged', async () => (await client.webhookDeliveries(created.id)).data[0]?.attempt_count === 2, 2000)
      assert.equal((await client.webhookDeliveries(created.id)).data[0]?.status, 'succeeded')

      const rotated = await client.rotateWebhookSecret(created.id)
      assert.notEqual(rotated.secret, created.secret)
      assert.ok(rotated.previous_secret_expires_at !== null)

      await client.deleteWebhook(created.id)
      await assert.rejects(client.getWebhook(created.id), NotFoundError)
      assert.deepEqual((await client.listWebhooks()).data, [])
    })

    it('throws the typed errors of the service\'s refusals', async () => {
      await assert.rejects(client.createWebhook({ url: 'ftp://example.com/x' }), (error: unknown) => error instanceof ValidationError && error.issues[0]?.type === 'url_invalid_url')
      await assert.rejects(client.webhookDeliveries('wh_000000000000000000000000'), NotFoundError)
      const hook = await client.createWebhook({ url: `${receiver.origin}/off` })
      await client.updateWebhook(hook.id, { status: 'disabled' })
      await assert.rejects(client.testWebhook(hook.id), (error: unknown) => error instanceof ConflictError && error.status === 409 && error.errorCode === 'CONFLICT')
      await client.deleteWebhook(hook.id)
    })
  })
}
