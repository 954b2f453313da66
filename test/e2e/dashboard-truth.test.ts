import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Page } from 'playwright-core'
import type { PartnerAnalyticsClient } from '../../packages/client/src/client.js'
import type { AccountStatus } from '../../packages/client/src/types.js'
import { importSources } from '../../src/services/import/import.service.js'
import { DIALECTS } from '../helpers/stores.js'
import { memorySource } from '../posts/posts-fixtures.js'
import { assertAccessible, docsImage, screenshot, shownNumber, waitForLoads, type BrowserSession } from './helpers/browser.js'
import type { DashboardServer } from './helpers/dashboard-server.js'
import { openSignedInDashboard, type SignedInDashboard } from './helpers/signed-in-dashboard.js'

/**
 * The dashboard tells the truth by default (issue 28, item 3), in Chromium, on the demo data
 * ending 2026-11-24 (four days before the machine's today, when the issue was written; the demo's
 * gaps are the issue's): brand 4's 2026-11-04, when its Facebook account sent nothing, is not
 * drawn as a fall; the marks of a long chart are clustered; brand 5's 1,212 % day does not set the
 * rate's axis; "Last 12 months" shows the previous period's coverage instead of +1,382 %; a
 * period ending in the future is shown through the last synced day; a month in which an account
 * missed days is marked; an import is seen by the open page. Expectations come from the API.
 */

const LAST_DAY = '2026-11-24'

interface Plot { left: number, top: number, width: number, height: number, ymin: number, ymax: number, marks: number, clusters: number }

async function plotOf (page: Page, metric: string): Promise<Plot> {
  // Set by the chart's draw, after the loads end: wait for it (getAttribute waits for the element only).
  const chart = page.locator(`[data-chart="${metric}"] .chart[data-plot]`)
  await chart.waitFor({ timeout: 30_000 })
  const text = await chart.getAttribute('data-plot')
  assert.ok(text !== null, `${metric}: the chart has drawn`)
  return JSON.parse(text) as Plot
}

/**
 * Pixels of a colour (within a small distance, for anti-aliasing) in a box of the chart's canvas,
 * given in CSS pixels.
 */
async function inkOf (page: Page, metric: string, box: { x0: number, x1: number, y0: number, y1: number }, rgb: [number, number, number]): Promise<number> {
  return await page.locator(`[data-chart="${metric}"] canvas`).evaluate((canvas: HTMLCanvasElement, { box, rgb }) => {
    const ratio = canvas.width / canvas.getBoundingClientRect().width
    const [x, y] = [Math.max(0, Math.floor(box.x0 * ratio)), Math.max(0, Math.floor(box.y0 * ratio))]
    const [w, h] = [Math.max(1, Math.ceil((box.x1 - box.x0) * ratio)), Math.max(1, Math.ceil((box.y1 - box.y0) * ratio))]
    const { data } = (canvas.getContext('2d') as CanvasRenderingContext2D).getImageData(x, y, w, h)
    let found = 0
    for (let i = 0; i < data.length; i += 4) {
      const distance = Math.abs((data[i] ?? 0) - rgb[0]) + Math.abs((data[i + 1] ?? 0) - rgb[1]) + Math.abs((data[i + 2] ?? 0) - rgb[2])
      if (distance < 90 && (data[i + 3] ?? 0) > 150) found++
    }
    return found
  }, { box, rgb })
}

/** The days from `since` to `until`, inclusive. */
const daysOf = (since: string, until: string) => Math.round((Date.parse(until) - Date.parse(since)) / 86_400_000) + 1

async function statuses (api: PartnerAnalyticsClient, query: { since: string, until: string, brand_id?: number[] }): Promise<AccountStatus[]> {
  const accounts: AccountStatus[] = []
  for await (const account of api.accountStatuses(query)) accounts.push(account)
  return accounts
}

for (const dialect of DIALECTS) {
  describe(`dashboard: the truth by default, in Chromium (${dialect})`, { timeout: 900_000 }, () => {
    let dashboard: SignedInDashboard
    let server: DashboardServer
    let browser: BrowserSession
    let page: Page
    let api: PartnerAnalyticsClient

    before(async () => {
      dashboard = await openSignedInDashboard(dialect, { until: LAST_DAY, start: `?brands=4&since=2026-08-27&until=${LAST_DAY}` })
      ;({ server, browser, page, api } = dashboard)
    })
    after(async () => { await dashboard?.close() })

    const open = async (search: string) => { await dashboard.open(search) }

    it('draws brand 4\'s followers on 2026-11-04 without a fall: the Facebook account carried from its last report, dashed', async () => {
      const [cliff] = (await api.analytics({ type: 'daily', since: '2026-11-04', until: '2026-11-04', brand_id: [4], include: ['status'] })).data as unknown as Array<Record<string, number>>
      assert.deepEqual([cliff?.followers, cliff?.accounts_reported, cliff?.accounts_expected], [186205, 2, 3], 'the issue\'s cliff')
      const plot = await plotOf(page, 'followers')
      assert.equal(plot.ymin, 0, 'the followers axis starts at 0')
      const days = daysOf('2026-08-27', LAST_DAY)
      const xOf = (date: string) => plot.left + (plot.width * (daysOf('2026-08-27', date) - 1)) / (days - 1)
      const yOf = (value: number) => plot.top + plot.height * (1 - (value - plot.ymin) / (plot.ymax - plot.ymin))
      // Between the 1.2 M level and the 0.4 M level, around 2026-11-04: a fall to 186,205 would cross it; nothing must.
      const band = { x0: xOf('2026-11-03') + 2, x1: xOf('2026-11-05') - 2, y0: yOf(1_200_000), y1: yOf(400_000) }
      assert.equal(await inkOf(page, 'followers', band, [0x00, 0x72, 0xb2]), 0, 'no line crosses the band: no fall is drawn')
      // The page asked with gaps=carry: the day stands at the carried value, on the line (dashed), not at 186,205.
      const [carried] = (await api.analytics({ type: 'daily', since: '2026-11-04', until: '2026-11-04', brand_id: [4], include: ['status'], gaps: 'carry' })).data as unknown as Array<Record<string, number>>
      assert.ok(Number(carried?.followers) > 1_400_000)
      const point = { x0: xOf('2026-11-04') - 2, x1: xOf('2026-11-04') + 2, y0: yOf(Number(carried?.followers)) - 4, y1: yOf(Number(carried?.followers)) + 4 }
      assert.ok(await inkOf(page, 'followers', point, [0x00, 0x72, 0xb2]) > 2, 'the carried day is drawn at its carried value')
      const low = { x0: xOf('2026-11-04') - 6, x1: xOf('2026-11-04') + 6, y0: yOf(186_205) - 6, y1: yOf(186_205) + 6 }
      assert.equal(await inkOf(page, 'followers', low, [0x00, 0x72, 0xb2]), 0, 'nothing is drawn at the zero-filled 186,205')
      // And the list names it, with the account missing.
      const listed = await page.locator('[data-incomplete-point]').allTextContents()
      assert.ok(listed.some((text) => text.startsWith('2026-11-04') && text.includes('2 of 3 accounts reported')), listed.join('\n'))
      await screenshot(page, dialect, 'truth-brand-4-90-days')
      await docsImage(page, dialect, 'brand-4-90-days')
    })

    it('draws brand 5\'s engagement rate by the gap rules: its 1,212 % day (interactions without views) does not set the axis', async () => {
      await open(`?brands=5&since=2026-10-28&until=${LAST_DAY}`)
      const entries = (await api.analytics({ type: 'daily', since: '2026-10-28', until: LAST_DAY, brand_id: [5], include: ['status'] })).data as Array<Record<string, unknown>>
      const spike = entries.find((entry) => entry.date === '2026-11-05')
      assert.equal(spike?.engagement_rate, 12.118819)
      // The page asks with gaps=carry: each day's rate over the account-days reporting both its parts.
      const carried = (await api.analytics({ type: 'daily', since: '2026-10-28', until: LAST_DAY, brand_id: [5], gaps: 'carry' })).data.map((entry) => Number(entry.engagement_rate))
      const highest = Math.max(...carried)
      assert.ok(highest < 1, `no day reads 1,212 % by the gap rules (highest ${highest})`)
      const plot = await plotOf(page, 'engagement_rate')
      assert.ok(plot.ymax >= highest && plot.ymax < 1.2 * highest, `axis top ${plot.ymax}, highest day ${highest}`)
      assert.equal((await page.locator('[data-chart="engagement_rate"] .chart').getAttribute('aria-label'))?.includes('The axis starts at 0'), true)
    })

    it('clusters the marks of 400 days split by platform instead of burying the chart', async () => {
      await open(`?platforms=fb,ig,tk&since=2025-10-21&until=${LAST_DAY}&split=1`)
      const plot = await plotOf(page, 'views')
      assert.ok(plot.marks > 2 * plot.clusters, `a long chart with many incomplete points (${plot.marks} in ${plot.clusters} clusters)`)
      assert.ok(plot.clusters <= Math.ceil(plot.width / 26) + 1, `${plot.clusters} marks over ${plot.width} px`)
      await screenshot(page, dialect, 'truth-400-days-split')
      await docsImage(page, dialect, '400-days-split')
    })

    it('shows the coverage of a barely reported previous period instead of a change (Last 12 months)', async () => {
      await open('?period=12m')
      const period = await page.locator('[data-period] strong').textContent()
      assert.equal(period, `2025-12-01 – ${LAST_DAY}`, 'twelve months ending on the last day with data')
      const since = '2025-12-01'
      const days = daysOf(since, LAST_DAY)
      const previous = { since: new Date(Date.parse(since) - days * 86_400_000).toISOString().slice(0, 10), until: '2025-11-30' }
      const now = await statuses(api, { since, until: LAST_DAY })
      const then = await statuses(api, { ...previous })
      const compared = now.filter((account) => account.days_reported > 0).map((account) => `${account.platform}|${account.account_id}`)
      const reported = then.filter((account) => compared.includes(`${account.platform}|${account.account_id}`)).reduce((sum, account) => sum + account.days_reported, 0)
      const expected = compared.length * daysOf(previous.since, previous.until)
      assert.ok(reported / expected < 0.9, `the demo's previous year is barely reported (${reported} of ${expected})`)
      for (const key of ['views', 'interactions', 'engagement_rate', 'followers', 'new_followers', 'posts_count']) {
        const card = page.locator(`[data-headline="${key}"]`)
        assert.equal(await card.locator('[data-change]').count(), 0, `${key}: no % change`)
        const coverage = card.locator('[data-coverage]')
        assert.equal(Number(await coverage.getAttribute('data-coverage')), Number((reported / expected).toFixed(4)), key)
        assert.match(await coverage.textContent() ?? '', new RegExp(`^No change shown: the previous period is \\d+\\.\\d % reported \\(${reported.toLocaleString('en-US')} of ${expected.toLocaleString('en-US')} account-days\\)$`))
      }
      await screenshot(page, dialect, 'truth-12-months')
      await docsImage(page, dialect, '12-months')
    })

    it('shows a period ending in the future through the last synced day, with its change against the same number of days before', async () => {
      await open('?brands=1&since=2026-11-01&until=2026-12-31')
      assert.equal(await page.locator('[data-period] strong').textContent(), `2026-11-01 – ${LAST_DAY}`)
      assert.match(await page.locator('[data-clamped]').textContent() ?? '', /Shown through 2026-11-24, the last day with data: you asked for days through 2026-12-31/)
      const now = await api.analytics({ type: 'agg', since: '2026-11-01', until: LAST_DAY, brand_id: [1], split_by_platform: true })
      const before = await api.analytics({ type: 'agg', since: '2026-10-08', until: '2026-10-31', brand_id: [1], split_by_platform: true })
      const views = page.locator('[data-headline="views"]')
      assert.equal(shownNumber(await views.locator('[data-value]').textContent() ?? ''), now.aggregates.total.views)
      assert.equal(shownNumber(await views.locator('[data-previous]').textContent() ?? ''), before.aggregates.total.views)
      const change = (now.aggregates.total.views - before.aggregates.total.views) / before.aggregates.total.views * 100
      assert.ok(Math.abs(change) < 30, 'the same number of days on both sides: no drop made of days not yet lived')
      assert.match(await views.locator('[data-change]').textContent() ?? '', new RegExp(`${Math.abs(change).toFixed(1)} %`))
      // The date fields stop at the last synced day (dashboard-dates.test.ts: a later day typed is refused).
      assert.equal(await page.locator('#until').getAttribute('data-max'), LAST_DAY)
      assert.equal(await page.locator('#since').getAttribute('data-max'), LAST_DAY)
    })

    it('marks a month in which an account missed days, in account-days, naming the account', async () => {
      await open(`?brands=1&since=2026-06-01&until=${LAST_DAY}&granularity=monthly`)
      const september = await statuses(api, { since: '2026-09-01', until: '2026-09-30', brand_id: [1] })
      const short = september.filter((account) => account.days_reported < account.days_expected)
      assert.ok(short.length > 0, 'brand 1 misses days in September 2026 on the demo')
      const expected = september.reduce((sum, account) => sum + account.days_expected, 0)
      const reported = september.reduce((sum, account) => sum + account.days_reported, 0)
      const monthly = (await api.analytics({ type: 'monthly', since: '2026-09-01', until: '2026-09-30', brand_id: [1], include: ['status'] })).data[0] as Record<string, unknown>
      assert.equal(monthly.accounts_reported, monthly.accounts_expected, 'the monthly entry alone says every account reported')
      const listed = await page.locator('[data-incomplete-point]').allTextContents()
      const item = listed.find((text) => text.startsWith('2026-09'))
      assert.ok(item?.includes(`${reported} of ${expected} account-days reported`), listed.join('\n'))
      for (const account of short) {
        const days = account.days_expected - account.days_reported
        assert.ok(item?.includes(`: ${days} ${days === 1 ? 'day' : 'days'}`) && item.includes(account.account_name), `${account.account_name} in ${String(item)}`)
      }
      assert.equal(await page.locator('[data-incomplete-count="0"]').count(), 0, 'not "every month shown has data from every account"')
      await assertAccessible(page, 'the monthly overview with months short of account-days')
    })

    it('learns from the change feed that an import landed, and offers to refresh', async () => {
      await open(`?brands=4&since=2026-11-01&until=${LAST_DAY}`)
      assert.equal(await page.locator('[data-new-data]').count(), 0)
      const [facebook] = (await api.dataStatus({ brand_id: [4], platform: ['fb'], since: '2026-11-01', until: LAST_DAY })).data
      assert.ok(facebook !== undefined)
      // The operator re-imports brand 4's missing 2026-11-04 for its Facebook account.
      await importSources(server.testStore.store, [memorySource([{ kind: 'daily', platform: 'fb', account_id: facebook.account_id, date: '2026-11-04', views: 1234, followers: 1_290_000 }])])
      // Moving to another view asks the feed (so does a 30 s poll while the page is visible).
      await page.getByRole('link', { name: 'Table' }).click()
      const banner = page.locator('[data-new-data]')
      await banner.waitFor()
      assert.match(await banner.textContent() ?? '', /New data has arrived for Solstice Labs since this page loaded \(import \d+, \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC\)/)
      await assertAccessible(page, 'the new-data banner')
      await page.getByRole('button', { name: 'Refresh to see it' }).click()
      await waitForLoads(page)
      assert.equal(await page.locator('[data-new-data]').count(), 0)
      await page.getByRole('link', { name: 'Overview' }).click()
      await waitForLoads(page)
      const listed = await page.locator('[data-incomplete-point]').allTextContents()
      assert.ok(!listed.some((text) => text.startsWith('2026-11-04')), `2026-11-04 is complete after the refresh: ${listed.join('\n')}`)
      assert.deepEqual(browser.faults, [], 'no page error and no CSP violation')
    })
  })
}
