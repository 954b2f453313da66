import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Page, Response } from 'playwright-core'
import { rotateCredentials } from '../../src/services/users/users.service.js'
import { DIALECTS } from '../helpers/stores.js'
import { apiClient } from './helpers/api.js'
import { assertAccessible, launchBrowser, signIn, UI_TIMEOUT_MS, waitForLoads, type BrowserSession } from './helpers/browser.js'
import { ensureDashboardBuilt } from './helpers/dashboard-build.js'
import { startDashboardServer, type DashboardServer } from './helpers/dashboard-server.js'

/**
 * The dashboard's honest states, each caused by the real service: no access (a brand named by a
 * shared link), an empty period, an API refusal with its detail and request id, an expired
 * session (one re-login, then a re-login that fails), and a rate limit it waits out.
 */

/** The X-Request-Id of every response of the page with this status (the shown id must be one of them). */
function requestIdsOf (page: Page, status: number): Set<string> {
  const ids = new Set<string>()
  page.on('response', (response: Response) => {
    if (response.status() === status) ids.add(response.headers()['x-request-id'] ?? '')
  })
  return ids
}

const logins = (page: Page): string[] => {
  const calls: string[] = []
  page.on('request', (request) => { if (request.method() === 'POST' && request.url().endsWith('/auth/login')) calls.push(request.url()) })
  return calls
}

/** Waits for a moment of the wall clock (a token's expiry): never less, however busy the machine. */
async function waitUntil (timeMs: number): Promise<void> {
  while (Date.now() < timeMs) await new Promise((resolve) => setTimeout(resolve, Math.min(250, timeMs - Date.now())))
}

for (const dialect of DIALECTS) {
  describe(`dashboard states in Chromium, ${dialect}`, { timeout: 600_000 }, () => {
    let server: DashboardServer
    let browser: BrowserSession

    before(async () => {
      await ensureDashboardBuilt()
      server = await startDashboardServer(dialect)
    })
    after(async () => { await server?.close() })
    const fresh = async () => {
      await browser?.close()
      browser = await launchBrowser(1440)
      return browser.page
    }
    after(async () => { await browser?.close() })

    it('shows "No access" with the API detail and request id for a brand the partner cannot see (403)', async () => {
      const page = await fresh()
      const forbidden = requestIdsOf(page, 403)
      await page.goto(`${server.baseUrl}/dashboard/?brands=8`)
      await signIn(page, server.partner)
      await waitForLoads(page)
      const notice = page.locator('[data-state="forbidden"]').first()
      assert.equal(await notice.locator('h3').textContent(), 'No access')
      assert.equal(await notice.locator('.problem-detail').textContent(), 'You do not have access to brand_id 8')
      assert.match(await notice.textContent() ?? '', /HTTP 403 FORBIDDEN/)
      assert.ok(forbidden.has(await notice.locator('[data-request-id]').textContent() ?? ''), 'the request id of a 403 the page received')
      // The link's brand stays listed in the filters, ticked, so it can be unticked.
      assert.equal(await page.getByRole('checkbox', { name: 'Brand 8 (not one of yours)' }).isChecked(), true)
      await assertAccessible(page, 'the 403 state')
    })

    it('shows the empty state, not zeros, for a period without data', async () => {
      const page = await fresh()
      await page.goto(`${server.baseUrl}/dashboard/?since=2000-01-01&until=2000-01-31`)
      await signIn(page, server.partner)
      await waitForLoads(page)
      assert.equal(await page.locator('[data-state="empty"]').count(), 2, 'summary and charts')
      assert.match(await page.locator('[data-state="empty"]').first().textContent() ?? '', /No data for this period.*2000-01-01 – 2000-01-31/)
      assert.equal(await page.locator('[data-headline]').count(), 0)
      for (const view of ['Platforms', 'Table', 'Top posts']) {
        await page.getByRole('link', { name: view }).click()
        await waitForLoads(page)
        assert.equal(await page.locator('[data-state="empty"]').count(), 1, view)
        assert.equal(await page.getByRole('button', { name: 'Download CSV' }).isDisabled(), true, `${view}: nothing to download`)
      }
      await assertAccessible(page, 'the empty state')
    })

    it('shows an API refusal with its detail and request id (422, period over 1096 days)', async () => {
      const page = await fresh()
      const refused = requestIdsOf(page, 422)
      await page.goto(`${server.baseUrl}/dashboard/?since=2020-01-01&until=2024-12-31`)
      await signIn(page, server.partner)
      await waitForLoads(page)
      const notice = page.locator('[data-state="invalid"]').first()
      assert.equal(await notice.locator('h3').textContent(), 'The API refused this query')
      // One refusal, shown by whichever load was refused first: the Summary's POST /reports names the members
      // of its body (the period and its comparison), the charts' GET /analytics/ its query (docs/dashboard.md).
      const detail = await notice.locator('.problem-detail').textContent() ?? ''
      assert.ok([
        'body.since: The period may span at most 1096 days; got 1827; body.comparison: The period may span at most 1096 days; got 1827',
        'query.since: The period may span at most 1096 days; got 1827',
      ].includes(detail), `the refusal's detail: ${detail}`)
      assert.match(await notice.textContent() ?? '', /HTTP 422 VALIDATION_ERROR/)
      assert.ok(refused.has(await notice.locator('[data-request-id]').textContent() ?? ''))
    })

    it('logs in again once when the token expires, and says the session expired when that login fails', async () => {
      const sibling = await server.listen({ TOKEN_TTL_SECONDS: '4' })
      const partner = await server.newPartner()
      const page = await fresh()
      const loginCalls = logins(page)
      const refusals: Array<Promise<string>> = []
      // The change feed's poll (on each change of view or filters) may ride the same expired token: counted apart.
      const feedRefusals: Array<Promise<string>> = []
      page.on('response', (response) => {
        if (response.status() === 401) (response.url().includes('/changes') ? feedRefusals : refusals).push(response.json().then((body: { error_code?: string }) => String(body.error_code)))
      })
      await page.goto(`${sibling.baseUrl}/dashboard/?view=posts&period=7d&brands=1`)
      await signIn(page, partner)
      const signedInAt = Date.now()
      await waitForLoads(page)
      assert.equal(loginCalls.length, 1)

      // A token lives 4 s: past that, the next request gets TOKEN_EXPIRED and the page logs in again, once.
      await waitUntil(signedInAt + 5_500)
      const relogin = page.waitForResponse((response) => response.url().endsWith('/auth/login') && response.status() === 200)
      const answered = page.waitForResponse((response) => response.url().includes('order_by=interactions') && response.status() === 200)
      await page.getByLabel('Order by').selectOption('interactions')
      await relogin
      const reloggedAt = Date.now()
      await answered
      await waitForLoads(page)
      assert.equal(loginCalls.length, 2, 'exactly one re-login')
      assert.deepEqual(await Promise.all(refusals), ['TOKEN_EXPIRED'])
      assert.ok((await Promise.all(feedRefusals)).every((code) => code === 'TOKEN_EXPIRED'))
      const posts = await apiClient(sibling.baseUrl, partner).posts({ since: (await page.locator('#since').inputValue()), until: server.today, brand_id: [1], order_by: 'interactions', limit: 10 })
      assert.deepEqual(await page.locator('[data-posts-table] tbody tr').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-post'))), posts.data.map((post) => post.id))

      // The key pair is rotated: the next expiry's re-login is refused, and the page says so.
      await rotateCredentials(server.testStore.store.db, partner.userId)
      await waitUntil(reloggedAt + 5_500)
      const failedLogin = page.waitForResponse((response) => response.url().endsWith('/auth/login') && response.status() === 401)
      // (An order not shown before: one already shown would come from the page's cache, with no request.)
      await page.getByLabel('Order by').selectOption('reach')
      const loginRequestId = (await failedLogin).headers()['x-request-id']
      const notice = page.locator('[data-state="session"]')
      await notice.waitFor()
      assert.equal(await notice.getByRole('heading').textContent(), 'Your session has expired and signing in again failed')
      assert.equal(await notice.locator('.problem-detail').textContent(), 'Invalid API client key or secret')
      assert.equal(await notice.locator('[data-request-id]').textContent(), loginRequestId)
      await page.getByLabel('API client key').waitFor()
      assert.equal(loginCalls.length, 3)
      assert.equal(new URL(page.url()).searchParams.get('order_by'), 'reach', 'the view is kept for after signing in again')
      await assertAccessible(page, 'the expired-session state')
    })

    if (dialect === 'sqlite') {
      // The limiter's counters live in the app (or Redis), not in the store: one dialect is enough.
      it('shows the Retry-After of a 429 while it waits, then carries on by itself', { timeout: 300_000 }, async () => {
        const limit = 20
        const sibling = await server.listen({ RATE_LIMIT_PER_MINUTE: String(limit) })
        // A round: use up this minute's requests for a new partner, early enough in the window,
        // then sign the page in as that partner: its first call must come in the spent minute to
        // be refused. On a busy machine the browser can take longer than what is left of the
        // minute; the page's first answer then comes from a later minute (its reset header, the
        // server's own window, says so) and the round starts again, at most 4 rounds.
        let page: Page | undefined
        let refused: Response | undefined
        for (let round = 0; round < 4 && refused === undefined; round++) {
          const partner = await server.newPartner()
          const token = (await apiClient(sibling.baseUrl, partner).login()).access_token
          let spentResetMs: number
          for (;;) {
            let response: globalThis.Response
            do {
              response = await fetch(`${sibling.baseUrl}/me`, { headers: { authorization: `Bearer ${token}` } })
            } while (response.status === 200 && response.headers.get('x-ratelimit-remaining-minutely') !== '0')
            spentResetMs = Number(response.headers.get('x-ratelimit-reset-minutely')) * 1000
            if (spentResetMs - Date.now() >= 10_000) break
            await waitUntil(spentResetMs + 200)
          }

          page = await fresh()
          // The page's first answer the per-user limiter judged (the login and the page's own files carry no user limit).
          const firstJudged = page.waitForResponse((response) => response.url().startsWith(sibling.baseUrl) && !response.url().endsWith('/auth/login') &&
            response.headers()['x-ratelimit-limit-minutely'] !== undefined, { timeout: UI_TIMEOUT_MS })
          await page.goto(`${sibling.baseUrl}/dashboard/?period=7d&brands=1`)
          await page.getByLabel('API client key').fill(partner.clientKey)
          await page.getByLabel('API secret key').fill(partner.secretKey)
          await page.getByRole('button', { name: 'Sign in' }).click()
          const first = await firstJudged
          if (first.status() === 429) {
            refused = first
          } else {
            // Answered: only a later minute may do that.
            const resetMs = Number(first.headers()['x-ratelimit-reset-minutely']) * 1000
            assert.ok(resetMs > spentResetMs, `the page's first call was answered ${first.status()} in the minute its partner had spent (reset ${resetMs / 1000})`)
          }
        }
        assert.ok(page !== undefined && refused !== undefined, 'in none of 4 rounds did the page\'s first call come within the minute its partner had spent')
        const banner = page.locator('[data-state="rate-limited"]')
        await banner.waitFor()
        assert.equal(await banner.locator('[data-retry-after]').textContent(), refused.headers()['retry-after'])
        assert.match(await banner.textContent() ?? '', /Rate limited \(RATE_LIMIT_EXCEEDED\): the API asked to wait \d+ s \(Retry-After\)/)
        await assertAccessible(page, 'the rate-limited state')

        // Once the window turns, the client retries and the dashboard loads; the banner goes.
        await page.getByRole('button', { name: 'Sign out' }).waitFor({ timeout: 120_000 })
        await waitForLoads(page)
        assert.ok(await page.locator('[data-headline="views"] [data-value]').isVisible())
        await banner.waitFor({ state: 'detached', timeout: UI_TIMEOUT_MS })
      })
    }
  })
}
