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
 * locale `en-US`), on the demo data ending 2026-11-24: brand 4's Facebook account, alone missing
 * 2026-11-04, has a carried point in the Platforms view and the charts split by platform (not none,
 * not zero); the Summary's engagement rate is the rate
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
      // The table renders when its details open: wait for the row (count() does not wait).
      await row.first().waitFor({ timeout: 30_000 })
      assert.equal(await row.count(), 1, `one row for ${bucket} in the ${metric} data table`)
      return shownNumber(await row.locator('td').first().textContent() ?? '')
    }

    /** The text of the cell of `column` (a line's heading) on `bucket` in a chart's data table. */
    async function tableCell (metric: string, bucket: string, column: string): Promise<string> {
      const chart = page.locator(`[data-chart="${metric}"]`)
      if (await chart.locator('details').getAttribute('open') === null) await chart.locator('details > summary').click()
      // The table renders when its details open: wait for it (allTextContents does not wait).
      await chart.locator(`[data-series-table="${metric}"] thead th`).first().waitFor({ timeout: 30_000 })
      const headings = await chart.locator(`[data-series-table="${metric}"] thead th`).allTextContents()
      const at = headings.indexOf(column)
      assert.ok(at > 0, `a ${column} column in the ${metric} data table: ${headings.join(' | ')}`)
      const row = chart.locator(`[data-series-table="${metric}"] tbody tr`).filter({ has: page.locator('th', { hasText: bucket }) })
      return await row.locator('th, td').nth(at).textContent() ?? ''
    }

    it('gives brand 4\'s Facebook account, alone missing 2026-11-04, a carried point in Platforms and in the charts split by platform', async () => {
      const day = { since: '2026-11-04', until: '2026-11-04' }
      const zero = (await api.analytics({ type: 'agg', ...day, brand_id: [4], split_by_platform: true })).data as Array<Record<string, unknown>>
      assert.equal(zero.find((entry) => entry.platform === 'fb'), undefined, 'without gaps, no Facebook entry: no row that day')
      const carry = (await api.analytics({ type: 'agg', ...day, brand_id: [4], split_by_platform: true, gaps: 'carry', include: ['status'] })).data as Array<Record<string, unknown>>
      const fb = carry.find((entry) => entry.platform === 'fb')
      assert.ok(fb !== undefined, 'with gaps=carry, a carried-only Facebook entry')
      assert.ok(Number(fb.followers) > 1_000_000, `its followers carried: ${String(fb.followers)}`)
      assert.deepEqual([fb.views, fb.interactions, fb.accounts_reported, fb.accounts_expected], [0, 0, 0, 1], 'no flow invented; nothing reported')
      assert.equal((fb.gaps as { followers: { carried: number } }).followers.carried, 1)

      // Platforms, by followers: a Facebook row at the carried value, not missing and not 0.
      await open(`?brands=4&since=${day.since}&until=${day.until}&view=platforms&metric=followers`)
      const bar = page.locator('[data-bars="followers"] tr[data-platform="fb"] [data-current]')
      assert.equal(await bar.count(), 1, 'a Facebook bar')
      assert.equal(await bar.textContent(), Number(fb.followers).toLocaleString('en-US'))
      assert.equal(await page.locator('[data-agg-table="platforms"] tr[data-platform="fb"] [data-field="followers"]').textContent(), Number(fb.followers).toLocaleString('en-US'))

      // The Overview split by platform: the Facebook line's 2026-11-04 stands at its carried followers, marked carried; its views are a gap, not 0.
      await open('?brands=4&since=2026-10-28&until=2026-11-10&split=1')
      const [daily] = (await api.analytics({ type: 'daily', ...day, brand_id: [4], split_by_platform: true, platform: ['fb'], gaps: 'carry' })).data as Array<Record<string, unknown>>
      const followers = await tableCell('followers', '2026-11-04', 'Facebook')
      assert.equal(shownNumber(followers), daily?.followers, followers)
      assert.match(followers, /1 account carried from its last report/)
      const views = await tableCell('views', '2026-11-04', 'Facebook')
      assert.ok(views.startsWith('—'), `views of a day nothing was reported: a gap, not 0 (${views})`)
      await screenshot(page, `gaps/${dialect}`, 'split-brand-4-carried')
    })

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
