import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Page } from 'playwright-core'
import type { PartnerAnalyticsClient } from '../../packages/client/src/client.js'
import { DIALECTS } from '../helpers/stores.js'
import { apiClient } from './helpers/api.js'
import { launchBrowser, sameRatio, screenshot, shownNumber, signIn, waitForLoads, type BrowserSession } from './helpers/browser.js'
import { ensureDashboardBuilt } from './helpers/dashboard-build.js'
import { startDashboardServer, type DashboardServer } from './helpers/dashboard-server.js'

/**
 * The last gaps of issue 28, in Chromium started under a US locale (`--lang=en-US`, context
 * locale `en-US`), on the demo data ending 2026-11-24: the Summary's engagement rate is the rate
 * the chart was drawn from, on data where gaps=carry and gaps=zero differ.
 * Expectations come from the API.
 */

const LAST_DAY = '2026-11-24'

for (const dialect of DIALECTS) {
  describe(`dashboard: missing data, the last gaps, in Chromium (${dialect})`, { timeout: 900_000 }, () => {
    let server: DashboardServer
    let browser: BrowserSession
    let page: Page
    let api: PartnerAnalyticsClient

    before(async () => {
      await ensureDashboardBuilt()
      server = await startDashboardServer(dialect, { until: LAST_DAY })
      api = apiClient(server.baseUrl, server.partner)
      browser = await launchBrowser(1440, { lang: 'en-US' })
      page = browser.page
      await page.goto(`${server.baseUrl}/dashboard/?brands=5&since=2026-11-05&until=2026-11-05`)
      await signIn(page, server.partner)
      await waitForLoads(page)
    })
    after(async () => {
      await browser?.close()
      await server?.close()
    })

    const open = async (search: string) => {
      await page.evaluate((url) => { window.history.pushState(null, '', url); window.dispatchEvent(new PopStateEvent('popstate')) }, `/dashboard/${search}`)
      await waitForLoads(page)
    }

    /** The chart's value of the only line on `bucket` (a day or a month), from its data table. */
    async function chartValue (metric: string, bucket: string): Promise<number | null> {
      const chart = page.locator(`[data-chart="${metric}"]`)
      if (await chart.locator('details').getAttribute('open') === null) await chart.locator('details > summary').click()
      const row = chart.locator(`[data-series-table="${metric}"] tbody tr`).filter({ has: page.locator('th', { hasText: bucket }) })
      assert.equal(await row.count(), 1, `one row for ${bucket} in the ${metric} data table`)
      return shownNumber(await row.locator('td').first().textContent() ?? '')
    }

    it('shows the Summary\'s engagement rate equal to the rate the chart was drawn from, where gaps=carry and gaps=zero differ', async () => {
      // Brand 5, one day (2026-11-05: interactions without views), and its month so far (monthly: one point standing for the period).
      const cases = [
        { search: '?brands=5&since=2026-11-05&until=2026-11-05', since: '2026-11-05', until: '2026-11-05', type: 'daily' as const, bucket: '2026-11-05' },
        { search: `?brands=5&since=2026-11-01&until=${LAST_DAY}&granularity=monthly`, since: '2026-11-01', until: LAST_DAY, type: 'monthly' as const, bucket: '2026-11' },
      ]
      for (const c of cases) {
        await open(c.search)
        const query = { type: c.type, since: c.since, until: c.until, brand_id: [5] }
        const [zero] = (await api.analytics(query)).data as unknown as Array<Record<string, number>>
        const [carry] = (await api.analytics({ ...query, gaps: 'carry' })).data as unknown as Array<Record<string, number>>
        assert.ok(zero !== undefined && carry !== undefined, `${c.bucket}: brand 5 has an entry`)
        assert.notEqual(carry.engagement_rate, zero.engagement_rate, `${c.bucket}: the gap rules change the rate (${zero.engagement_rate} without them)`)
        const card = shownNumber(await page.locator('[data-headline="engagement_rate"] [data-value]').textContent() ?? '')
        const drawn = await chartValue('engagement_rate', c.bucket)
        assert.ok(sameRatio(card, drawn), `${c.bucket}: the Summary shows ${String(card)}, the chart was drawn from ${String(drawn)}`)
        assert.ok(sameRatio(card, carry.engagement_rate), `${c.bucket}: both are the gap rules' ${carry.engagement_rate}, not ${zero.engagement_rate}`)
      }
      await screenshot(page, `gaps/${dialect}`, 'rate-summary-and-chart')
    })
  })
}
