import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { verifyWebhook } from '../../packages/client/src/webhooks.js'
import { buildTestApp } from '../helpers/app.js'
import { insertBrandsWithAccounts } from '../helpers/fixtures.js'
import { createPartner, type TestPartner } from '../helpers/partners.js'
import { waitFor } from '../helpers/processes.js'
import { createTestStore, DIALECTS, type TestStore } from '../helpers/stores.js'
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js'
import { assertAccessible, launchBrowser, screenshot, signIn, waitForLoads, type BrowserSession } from './helpers/browser.js'
import { ensureDashboardBuilt } from './helpers/dashboard-build.js'

/**
 * The dashboard's Webhooks view in Chromium against the real service (both stores) and a real
 * receiver: add a webhook (its secret shown once, and it verifies the deliveries), send a test
 * event, read the delivery log, redeliver; a refused URL shows the API's reason; axe-core finds
 * nothing.
 */

for (const dialect of DIALECTS) {
  describe(`dashboard Webhooks view in Chromium, ${dialect}`, { timeout: 300_000 }, () => {
    let test: TestStore
    let app: FastifyInstance
    let baseUrl: string
    let partner: TestPartner
    let receiver: Receiver
    let browser: BrowserSession

    before(async () => {
      await ensureDashboardBuilt()
      test = await createTestStore(dialect)
      await insertBrandsWithAccounts(test.store.db, [{ brand_id: 1, accounts: [{ platform: 'fb', account_id: 10 }] }])
      partner = await createPartner(test.store, { brandIds: [1] })
      app = await buildTestApp(test.store, { WEBHOOK_ALLOW_PRIVATE: '1', RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_PER_HOUR: '0' })
      app.services.webhooks.worker.start({ info: () => {}, warn: () => {}, error: () => {} })
      baseUrl = await app.listen({ host: '127.0.0.1', port: 0 })
      receiver = await startReceiver()
      browser = await launchBrowser(1440)
    })
    after(async () => {
      await browser?.close()
      await app?.close()
      await receiver?.close()
      await test?.cleanup()
    })

    it('adds a webhook, shows its secret once, sends a test event, shows the log and redelivers', async () => {
      const { page } = browser
      await page.goto(`${baseUrl}/dashboard/?view=webhooks`)
      await signIn(page, partner)
      await waitForLoads(page)
      assert.equal(await page.getByRole('heading', { name: 'Webhooks' }).count(), 1)
      assert.match(await page.locator('[data-state="no-webhooks"]').textContent() ?? '', /No webhooks yet/)

      await page.getByLabel('URL (https://)').fill(`${receiver.origin}/dashboard`)
      await page.getByLabel('Description (optional)').fill('From the dashboard')
      await page.getByRole('checkbox', { name: 'account.updated' }).uncheck()
      await page.getByRole('button', { name: 'Add webhook' }).click()
      const secret = (await page.locator('[data-webhook-secret] [data-secret]').textContent()) ?? ''
      assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/)
      await page.locator('[data-webhooks-table]').waitFor()
      const [hook] = (await app.inject({ method: 'GET', url: '/webhooks', headers: { authorization: `Bearer ${await token()}` } })).json().data
      assert.deepEqual([hook.url, hook.description, hook.events], [`${receiver.origin}/dashboard`, 'From the dashboard', ['analytics.updated', 'posts.updated', 'brand.updated', 'access.granted', 'access.revoked']])
      assert.match(await page.locator(`[data-webhook="${String(hook.id)}"]`).textContent() ?? '', /enabled/)
      await assertAccessible(page, 'the Webhooks view with a new secret')
      await screenshot(page, 'webhooks', `secret-${dialect}`)
      await page.getByRole('button', { name: 'I have stored it' }).click()
      assert.equal(await page.locator('[data-webhook-secret]').count(), 0, 'the secret is shown once')

      await page.getByRole('button', { name: `Send test to ${receiver.origin}/dashboard` }).click()
      assert.match(await page.locator('[data-webhook-notice]').textContent() ?? '', /^Test event evt_\d+ queued/)
      await waitFor('the test delivery', () => receiver.at('/dashboard').length === 1, 5000)
      const [delivery] = receiver.at('/dashboard')
      const event = verifyWebhook(secret, delivery?.headers ?? {}, delivery?.body ?? '')
      assert.deepEqual([event.type, event.data], ['webhook.test', { webhook_id: hook.id }])

      const row = page.locator(`[data-delivery="dlv_${event.id.slice(4)}"]`)
      for (let i = 0; i < 20 && !/succeeded/.test(await row.locator('[data-delivery-status]').textContent().catch(() => '') ?? ''); i++) {
        await page.getByRole('button', { name: 'Refresh log' }).click()
        await page.waitForTimeout(250)
      }
      assert.equal(await row.locator('[data-delivery-status]').textContent(), 'succeeded')
      assert.match(await row.locator('[data-last-attempt]').textContent() ?? '', /: HTTP 200 in \d+ ms$/)
      await row.getByRole('button', { name: `Redeliver ${event.id}` }).click()
      await waitFor('the redelivery', () => receiver.at('/dashboard').length === 2, 5000)
      assert.equal(receiver.at('/dashboard')[1]?.headers['webhook-id'], event.id)
      await assertAccessible(page, 'the delivery log')
      await screenshot(page, 'webhooks', `log-${dialect}`)
      assert.deepEqual(browser.faults, [])
    })

    it('shows the API\'s reason for a refused URL', async () => {
      const { page } = browser
      await page.getByLabel('URL (https://)').fill('ftp://example.com/hooks')
      await page.getByRole('button', { name: 'Add webhook' }).click()
      const problem = page.locator('[data-state="invalid"]')
      await problem.waitFor()
      assert.match(await problem.textContent() ?? '', /URL refused \(invalid_url\)/)
      assert.match(await problem.textContent() ?? '', /HTTP 422 VALIDATION_ERROR/)
    })

    async function token (): Promise<string> {
      const login = await app.inject({ method: 'POST', url: '/auth/login', payload: { api_client_key: partner.clientKey, api_secret_key: partner.secretKey } })
      return login.json().access_token
    }
  })
}
