import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { FastifyInstance } from 'fastify'
import type { Locator, Page } from 'playwright-core'
import { verifyWebhook } from '../../packages/client/src/webhooks.js'
import { buildTestApp } from '../helpers/app.js'
import { insertBrandsWithAccounts } from '../helpers/fixtures.js'
import { createPartner, type TestPartner } from '../helpers/partners.js'
import { waitFor } from '../helpers/processes.js'
import { createTestStore, DIALECTS, type TestStore } from '../helpers/stores.js'
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js'
import { assertAccessible, launchBrowser, screenshot, signIn, waitForLoads, type BrowserSession } from './helpers/browser.js'
import { sidewaysScroll } from './helpers/layout.js'
import { ensureDashboardBuilt } from './helpers/dashboard-build.js'

/**
 * The dashboard's Webhooks view in Chromium against the real service (both stores) and a real
 * receiver: add a webhook (its secret shown once, and it verifies the deliveries), send a test
 * event, read the delivery log, redeliver; a refused URL shows the API's reason; edit, disable,
 * enable, rotate the secret and delete (after a confirmation); the log names its webhook and shows
 * every attempt; the analytics filters are not on the view; nothing scrolls sideways at 390 px;
 * axe-core finds nothing.
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
      // Retries after 300 ms: a delivery failing twice then succeeding is seen within a second.
      app = await buildTestApp(test.store, { WEBHOOK_ALLOW_PRIVATE: '1', RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_PER_HOUR: '0', WEBHOOK_RETRY_SCHEDULE: '300ms,300ms,300ms' })
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
      // The secret is shown once: gone once dismissed (waited for; count() reads whatever is on screen at that moment).
      await page.locator('[data-webhook-secret]').waitFor({ state: 'detached' })

      await page.getByRole('button', { name: `Send test to ${receiver.origin}/dashboard` }).click()
      assert.match(await page.locator('[data-webhook-notice]').textContent() ?? '', /^Test event evt_\d+ queued/)
      await waitFor('the test delivery', () => receiver.at('/dashboard').length === 1, 5000)
      const [delivery] = receiver.at('/dashboard')
      const event = verifyWebhook(secret, delivery?.headers ?? {}, delivery?.body ?? '')
      assert.deepEqual([event.type, event.data], ['webhook.test', { webhook_id: hook.id }])

      const row = page.locator(`[data-delivery="dlv_${event.id.slice(4)}"]`)
      const succeeded = await refreshUntil(page, row, 'the log shows the success', (seen) => seen.status === 'succeeded')
      assert.match(succeeded.attempts[0] ?? '', /: HTTP 200 in \d+ ms$/, succeeded.attempts.join('\n'))
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

    it('shows every attempt of a delivery in the log of the webhook it names: two 500s, then the success', async () => {
      const { page } = browser
      receiver.on('/flaky', { statuses: [500, 500, 200] })
      const flaky = await api('POST', '/webhooks', { url: `${receiver.origin}/flaky`, description: 'Flaky receiver', events: ['analytics.updated'] })
      await page.getByRole('button', { name: 'Reload' }).click()
      await page.getByRole('button', { name: `Send test to ${receiver.origin}/flaky` }).click()
      await waitFor('three attempts', () => receiver.at('/flaky').length === 3, 15_000)
      const log = page.locator(`[data-webhook-log="${String(flaky.id)}"]`)
      assert.equal(await log.locator('[data-log-of]').textContent(), `Delivery log of Flaky receiver (${receiver.origin}/flaky)`)
      const row = log.locator('[data-delivery]').first()
      const { attemptCount, attempts } = await refreshUntil(page, row, 'the log shows the success', (seen) => seen.status === 'succeeded')
      assert.equal(attemptCount, '3')
      assert.equal(attempts.length, 3, `attempts shown: ${attempts.join(' | ')}`)
      assert.match(attempts[0] ?? '', /: HTTP 200 in \d+ ms$/)
      assert.match(attempts[1] ?? '', /: HTTP 500 in \d+ ms$/)
      assert.match(attempts[2] ?? '', /: HTTP 500 in \d+ ms$/)
      // The analytics filters have nothing to do here.
      assert.equal(await page.locator('.filters').count(), 0)
      await assertAccessible(page, 'the log with every attempt')
      await screenshot(page, 'webhooks', `attempts-${dialect}`)
    })

    it('edits, disables, enables, rotates the secret of and deletes a webhook (after a confirmation)', async () => {
      const { page } = browser
      const url = `${receiver.origin}/flaky`
      const [flaky] = (await api('GET', '/webhooks')).data.filter((hook: { url: string }) => hook.url === url)
      const hookRow = () => page.locator(`[data-webhook="${String(flaky.id)}"]`)

      await page.getByRole('button', { name: `Edit ${url}` }).click()
      const form = page.locator('[data-webhook-form="edit"]')
      assert.equal(await form.getByLabel('URL (https://)').inputValue(), url)
      assert.equal(await form.getByLabel('Description (optional)').inputValue(), 'Flaky receiver')
      await form.getByLabel('URL (https://)').fill(`${receiver.origin}/steady`)
      await form.getByLabel('Description (optional)').fill('Steady receiver')
      await form.getByRole('checkbox', { name: 'posts.updated' }).check()
      await form.getByRole('button', { name: 'Save changes' }).click()
      await page.locator('[data-webhook-notice]').filter({ hasText: 'is saved' }).waitFor()
      const edited = await api('GET', `/webhooks/${String(flaky.id)}`)
      assert.deepEqual([edited.url, edited.description, edited.events], [`${receiver.origin}/steady`, 'Steady receiver', ['analytics.updated', 'posts.updated']])
      // The notice comes with the list still showing the row before the edit ("Flaky receiver"); the
      // list is read again a frame later. The edited row is waited for, not read at once.
      await hookRow().filter({ hasText: `${receiver.origin}/steady` }).filter({ hasText: 'Steady receiver' }).waitFor()
      const steady = `${receiver.origin}/steady`

      await page.getByRole('button', { name: `Disable ${steady}` }).click()
      await page.getByRole('button', { name: `Enable ${steady}` }).waitFor()
      assert.match(await hookRow().locator('[data-webhook-status]').textContent() ?? '', /^disabled/)
      assert.deepEqual(await api('GET', `/webhooks/${String(flaky.id)}`).then((hook) => [hook.status, hook.disabled_by]), ['disabled', 'partner'])
      await page.getByRole('button', { name: `Enable ${steady}` }).click()
      await page.getByRole('button', { name: `Disable ${steady}` }).waitFor()
      assert.equal((await api('GET', `/webhooks/${String(flaky.id)}`)).status, 'enabled')

      await page.getByRole('button', { name: `Rotate secret of ${steady}` }).click()
      const shown = page.locator('[data-webhook-secret]')
      await shown.waitFor()
      assert.match(await shown.textContent() ?? '', /New signing secret of .*\/steady/)
      const secret = await shown.locator('[data-secret]').textContent() ?? ''
      assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/)
      await page.getByRole('button', { name: 'I have stored it' }).click()
      await page.getByRole('button', { name: `Send test to ${steady}` }).click()
      await waitFor('the test delivery to the new URL', () => receiver.at('/steady').length === 1, 15_000)
      const [delivery] = receiver.at('/steady')
      assert.equal(verifyWebhook(secret, delivery?.headers ?? {}, delivery?.body ?? '').type, 'webhook.test', 'signed with the rotated secret')

      await page.getByRole('button', { name: `Delete ${steady}` }).click()
      const confirm = page.getByRole('alertdialog')
      assert.match(await confirm.textContent() ?? '', /Delete the webhook .*\/steady\?/)
      await assertAccessible(page, 'the delete confirmation')
      await confirm.getByRole('button', { name: 'Keep it' }).click()
      await page.getByRole('alertdialog').waitFor({ state: 'detached' })
      assert.equal((await api('GET', '/webhooks')).data.length, 2, 'kept')
      await page.getByRole('button', { name: `Delete ${steady}` }).click()
      await page.getByRole('alertdialog').getByRole('button', { name: 'Delete it' }).click()
      await hookRow().waitFor({ state: 'detached' })
      assert.deepEqual((await api('GET', '/webhooks')).data.map((hook: { url: string }) => hook.url), [`${receiver.origin}/dashboard`])
      assert.deepEqual(browser.faults, [])
    })

    it('needs no sideways scrolling at 390 px: status and actions stacked under each webhook', async () => {
      const narrow = await launchBrowser(390)
      try {
        const { page } = narrow
        await page.goto(`${baseUrl}/dashboard/?view=webhooks`)
        await signIn(page, partner)
        await waitForLoads(page)
        await page.getByRole('button', { name: `Deliveries of ${receiver.origin}/dashboard` }).click()
        await page.locator('[data-deliveries-table]').waitFor()
        assert.equal(await sidewaysScroll(page), 0, 'the page')
        for (const table of ['[data-webhooks-table]', '[data-deliveries-table]']) {
          const region = page.locator(table).locator('xpath=..')
          const [scrollWidth, clientWidth] = await region.evaluate((element) => [element.scrollWidth, element.clientWidth])
          assert.ok(scrollWidth <= clientWidth, `${table} scrolls sideways: ${scrollWidth} in ${clientWidth}`)
        }
        for (const cell of ['[data-webhook-status]', 'td.actions button']) {
          const right = await page.locator(cell).evaluateAll((elements) => Math.max(...elements.map((element) => element.getBoundingClientRect().right)))
          assert.ok(right <= 390, `${cell} ends at ${right} px`)
        }
        await assertAccessible(page, 'the Webhooks view at 390 px')
        await screenshot(page, 'webhooks', `log-${dialect}`)
        assert.deepEqual(narrow.faults, [])
      } finally {
        await narrow.close()
      }
    })

    /** The API's answer to the partner's own request (a token per call: simple and rare). */
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the API's JSON, read field by field as the assertions need
    async function api (method: 'GET' | 'POST', url: string, payload?: object): Promise<any> {
      const response = await app.inject({ method, url, headers: { authorization: `Bearer ${await token()}` }, ...(payload === undefined ? {} : { payload }) })
      assert.ok(response.statusCode < 300, `${method} ${url}: ${response.statusCode} ${response.body}`)
      return response.json()
    }

    async function token (): Promise<string> {
      const login = await app.inject({ method: 'POST', url: '/auth/login', payload: { api_client_key: partner.clientKey, api_secret_key: partner.secretKey } })
      return login.json().access_token
    }
  })
}

/** One delivery row of the log, read in a single look at the page. */
interface DeliveryRow { status: string, attemptCount: string, attempts: string[] }

/**
 * Presses "Refresh log" until the delivery row shows what `done` waits for, and returns that row.
 * A refresh empties the log a frame after the press (its effect) and fills it again when the API
 * answers, so right after the press the rows on screen may still be the old ones. The rows shown
 * are marked before each press and the row is read only from a log drawn after the mark (an
 * unmarked row), in one evaluation: cells read one by one could straddle a refresh (the status of
 * the old rows, the attempts of none).
 */
async function refreshUntil (page: Page, row: Locator, what: string, done: (seen: DeliveryRow) => boolean): Promise<DeliveryRow> {
  let seen: DeliveryRow | undefined
  await waitFor(what, async () => {
    await page.locator('[data-delivery]').evaluateAll((rows) => { for (const shown of rows) shown.setAttribute('data-before-refresh', '') })
    await page.getByRole('button', { name: 'Refresh log' }).click()
    seen = await row.and(page.locator(':not([data-before-refresh])')).evaluate((element): DeliveryRow => ({
      status: element.querySelector('[data-delivery-status]')?.textContent ?? '',
      attemptCount: element.querySelector('[data-attempt-count]')?.textContent ?? '',
      attempts: [...element.querySelectorAll('[data-attempt]')].map((attempt) => attempt.textContent ?? ''),
    }), undefined, { timeout: 5000 }).catch(() => undefined)
    return seen !== undefined && done(seen)
  }, 15_000)
  assert.ok(seen !== undefined, `${what}: no row read`)
  return seen
}
