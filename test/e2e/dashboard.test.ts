import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, before, describe, it } from 'node:test'
import type { Locator, Page } from 'playwright-core'
import type { PartnerAnalyticsClient } from '../../packages/client/src/client.js'
import type { AggReport, AnalyticsEntry, Brand } from '../../packages/client/src/types.js'
import { addDays } from '../../src/domain/dates.js'
import { DIALECTS } from '../helpers/stores.js'
import { allDailyEntries, apiClient, exportFile } from './helpers/api.js'
import { assertAccessible, docsImage, launchBrowser, sameRatio, screenshot, shownNumber, signIn, waitForLoads, type BrowserSession } from './helpers/browser.js'
import { ensureDashboardBuilt } from './helpers/dashboard-build.js'
import { startDashboardServer, type DashboardServer } from './helpers/dashboard-server.js'

/**
 * The partner dashboard in a real browser (Debian's Chromium through playwright-core) against a
 * listening service with the demo data, on each store: one partner's journey from the sign-in
 * form to sign-out. Every figure read off the screen is compared with the API's JSON for the same
 * query, and every CSV download with the file `partner-analytics-export` writes for that query.
 */

const PLATFORM_NAMES: Record<string, string> = { fb: 'Facebook', ig: 'Instagram', tk: 'TikTok', yt: 'YouTube', li: 'LinkedIn', th: 'Threads', sc: 'Snapchat', da: 'Dailymotion', pi: 'Pinterest' }

const totals = (response: AggReport): Record<string, number | null> => response.aggregates.total

/** A chart's data table as {column label → {row label → cell text}}. */
async function readSeriesTable (page: Page, metric: string): Promise<{ columns: string[], rows: Map<string, string[]> }> {
  const card = page.locator(`[data-chart="${metric}"]`)
  const details = card.locator('details')
  if (await details.getAttribute('open') === null) await card.locator('summary').click()
  const table = card.locator(`[data-series-table="${metric}"]`)
  await table.waitFor()
  const { columns, rows } = await table.evaluate((element) => ({
    columns: [...element.querySelectorAll('thead th')].slice(1).map((cell) => cell.textContent ?? ''),
    rows: [...element.querySelectorAll('tbody tr')].map((row) => [row.querySelector('th')?.textContent ?? '', [...row.querySelectorAll('td')].map((cell) => cell.textContent ?? '')] as [string, string[]]),
  }))
  return { columns, rows: new Map(rows) }
}

/** Every cell of the table equals the entry of that date and group, or is a dash when the API has no entry. */
function assertSeriesTable (table: { columns: string[], rows: Map<string, string[]> }, entries: AnalyticsEntry[], xField: 'date' | 'month', labelOf: (entry: Record<string, unknown>) => string, metric: string): void {
  const expected = new Map<string, unknown>()
  for (const entry of entries as Array<Record<string, unknown>>) expected.set(`${String(entry[xField])}|${labelOf(entry)}`, entry[metric])
  let drawn = 0
  for (const [x, cells] of table.rows) {
    table.columns.forEach((column, index) => {
      const shown = shownNumber(cells[index] ?? '')
      const api = expected.get(`${x}|${column}`)
      if (api === undefined) {
        assert.equal(shown, null, `${metric} ${x} ${column}: no entry in the API, so a gap, not ${String(shown)}`)
      } else if (metric === 'engagement_rate') {
        assert.ok(sameRatio(shown, api), `${metric} ${x} ${column}: ${String(shown)} on screen, ${String(api)} in the API`)
        drawn++
      } else {
        assert.equal(shown, api, `${metric} ${x} ${column}`)
        drawn++
      }
    })
  }
  assert.equal(drawn, entries.length, 'every entry of the API is on screen once')
}

async function downloadCsv (page: Page, section: Locator): Promise<{ name: string, text: string }> {
  const [download] = await Promise.all([page.waitForEvent('download'), section.getByRole('button', { name: 'Download CSV' }).click()])
  const path = await download.path()
  return { name: download.suggestedFilename(), text: readFileSync(path, 'utf8') }
}

async function exportArgsShown (section: Locator): Promise<string[]> {
  const text = await section.locator('[data-export-command]').textContent() ?? ''
  const [command, ...args] = text.split(' ')
  assert.equal(command, 'partner-analytics-export')
  return args
}

async function applyFilters (page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Apply filters' }).click()
  await waitForLoads(page)
}

for (const dialect of DIALECTS) {
  describe(`partner dashboard in Chromium, ${dialect}`, { timeout: 900_000 }, () => {
    let server: DashboardServer
    let browser: BrowserSession
    let page: Page
    let api: PartnerAnalyticsClient
    let brands: Brand[]
    let today: string
    const requests: string[] = []

    before(async () => {
      await ensureDashboardBuilt()
      server = await startDashboardServer(dialect)
      today = server.today
      api = apiClient(server.baseUrl, server.partner)
      brands = (await api.me({ limit: 100 })).brands
      browser = await launchBrowser(1440)
      page = browser.page
      page.on('request', (request) => { requests.push(request.url()) })
    })
    after(async () => {
      await browser?.close()
      await server?.close()
    })

    const brandName = (id: unknown) => brands.find((brand) => brand.brand_id === id)?.brand_name ?? `Brand ${String(id)}`
    const section = (title: string | RegExp) => page.locator('section.panel').filter({ has: page.getByRole('heading', { level: 2, name: title }) })
    const headline = async (key: string, part: 'value' | 'previous') => shownNumber(await page.locator(`[data-headline="${key}"] [data-${part}]`).textContent() ?? '')

    it('answers GET / with a redirect to /dashboard/, served with a strict CSP and no inline script', async () => {
      const root = await fetch(`${server.baseUrl}/?period=7d`, { redirect: 'manual' })
      assert.equal(root.status, 302)
      assert.equal(root.headers.get('location'), '/dashboard/?period=7d')
      const response = await fetch(`${server.baseUrl}/dashboard/`)
      assert.equal(response.status, 200)
      const csp = response.headers.get('content-security-policy') ?? ''
      assert.match(csp, /default-src 'self'/)
      assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|https?:/)
      const html = await response.text()
      assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, 'no inline script')
      assert.doesNotMatch(html, /https?:\/\//, 'nothing from another origin')
      const assets = [...html.matchAll(/(?:src|href)="(\/dashboard\/assets\/[^"]+)"/g)].map((match) => match[1] as string)
      assert.ok(assets.length >= 2, html)
      for (const asset of assets) {
        const file = await fetch(`${server.baseUrl}${asset}`)
        assert.equal(file.status, 200, asset)
        assert.match(file.headers.get('cache-control') ?? '', /immutable/)
      }
    })

    it('signs in with the key pair and shows the headline figures the API gives, against the previous period', async () => {
      await page.goto(`${server.baseUrl}/`)
      assert.equal(new URL(page.url()).pathname, '/dashboard/')
      await signIn(page, server.partner)
      await waitForLoads(page)
      assert.equal(await page.locator('[data-user-name]').textContent(), (await api.me()).name)

      const period = { since: addDays(today, -27), until: today }
      const previous = { since: addDays(today, -55), until: addDays(today, -28) }
      assert.match(await page.locator('[data-period]').textContent() ?? '', new RegExp(`${period.since} – ${period.until} \\(28 days\\), compared with ${previous.since} – ${previous.until}`))
      const current = await api.analytics({ type: 'agg', ...period, split_by_platform: true })
      const before = await api.analytics({ type: 'agg', ...previous, split_by_platform: true })
      for (const key of ['views', 'interactions', 'followers', 'new_followers', 'posts_count']) {
        assert.equal(await headline(key, 'value'), totals(current)[key], key)
        assert.equal(await headline(key, 'previous'), totals(before)[key], `${key}, previous period`)
      }
      // The headline rate follows the gap rules (account-days that reported both parts), as the charts: the API's own, asked so.
      const carriedRate = async (within: { since: string, until: string }) => (await api.report({ metrics: ['engagement_rate'], ...within, gaps: 'carry' })).rows[0]?.metrics.engagement_rate
      assert.ok(sameRatio(await headline('engagement_rate', 'value'), await carriedRate(period)))
      assert.ok(sameRatio(await headline('engagement_rate', 'previous'), await carriedRate(previous)))
      const views = [totals(current).views, totals(before).views] as [number, number]
      const change = `${views[0] >= views[1] ? '+' : '−'}${(Math.abs(views[0] - views[1]) / views[1] * 100).toFixed(1)} %`
      assert.ok((await page.locator('[data-headline="views"] [data-change]').textContent())?.includes(change), change)

      // The key pair and token stay in memory: not in the address, storage or cookies.
      assert.doesNotMatch(page.url(), /pak_|pas_|token|eyJ/)
      assert.deepEqual(await page.evaluate(() => [localStorage.length, sessionStorage.length, document.cookie]), [0, 0, ''])
      assert.deepEqual(await browser.context.cookies(), [])
    })

    it('walks every daily page: each chart value is the API entry of that day, a day without one is a gap', async () => {
      const period = { since: addDays(today, -27), until: today }
      const entries = await allDailyEntries(api, { ...period, gaps: 'carry' })
      const dailyCalls = requests.filter((url) => url.includes('/analytics/') && url.includes('type=daily'))
      assert.equal(dailyCalls.length, Math.ceil(entries.length / 20), 'one request per page of 20')
      const labelOf = (entry: Record<string, unknown>) => brandName(entry.brand_id)
      for (const metric of ['views', 'interactions', 'followers', 'engagement_rate']) {
        assertSeriesTable(await readSeriesTable(page, metric), entries, 'date', labelOf, metric)
      }
      assert.equal(await page.locator('[data-chart] canvas').count() >= 4, true)
    })

    it('downloads the daily entries as the same CSV file as partner-analytics-export', async () => {
      const charts = section(/^Over time/)
      const args = await exportArgsShown(charts)
      assert.deepEqual(args, ['analytics', '--type', 'daily', '--since', addDays(today, -27), '--until', today, '--gaps', 'carry', '--format', 'csv'])
      const downloaded = await downloadCsv(page, charts)
      assert.equal(downloaded.name, `analytics-daily-${addDays(today, -27)}-${today}.csv`)
      assert.equal(downloaded.text, await exportFile(server.baseUrl, server.partner, args))
    })

    it('applies the filter form into the URL; days before the data starts are gaps; one brand shows the API engagement rate', async () => {
      const [first, second] = brands as [Brand, Brand]
      await page.getByRole('checkbox', { name: first.brand_name }).check()
      await page.getByRole('checkbox', { name: second.brand_name }).check()
      // The demo data covers 400 days ending today: the first six days of this period have none.
      const period = { since: addDays(today, -405), until: addDays(today, -380) }
      await page.getByLabel('Period', { exact: true }).selectOption('custom')
      await page.getByLabel('From', { exact: true }).fill(period.since)
      await page.getByLabel('To', { exact: true }).fill(period.until)
      await applyFilters(page)
      const search = new URL(page.url()).searchParams
      assert.equal(search.get('brands'), `${first.brand_id},${second.brand_id}`)
      assert.equal(search.get('since'), period.since)
      assert.equal(search.get('until'), period.until)

      const entries = await allDailyEntries(api, { ...period, brand_id: [first.brand_id, second.brand_id], gaps: 'carry' })
      const table = await readSeriesTable(page, 'views')
      assertSeriesTable(table, entries, 'date', (entry) => brandName(entry.brand_id), 'views')
      for (let day = 0; day < 6; day++) assert.deepEqual(table.rows.get(addDays(period.since, day)), ['—', '—'], 'no entry: a gap, not 0')

      // One brand over all platforms: the headline engagement rate is the API's own for that brand.
      await page.getByRole('checkbox', { name: second.brand_name }).uncheck()
      await page.getByLabel('Period', { exact: true }).selectOption('7d')
      await applyFilters(page)
      const week = { since: addDays(today, -6), until: today }
      const agg = await api.analytics({ type: 'agg', ...week, brand_id: [first.brand_id], gaps: 'carry' })
      assert.equal(agg.data.length, 1)
      assert.ok(sameRatio(await headline('engagement_rate', 'value'), agg.data[0]?.engagement_rate))
      assert.equal(await headline('views', 'value'), totals(agg).views)
      const previousAgg = await api.analytics({ type: 'agg', since: addDays(today, -13), until: addDays(today, -7), brand_id: [first.brand_id], gaps: 'carry' })
      assert.ok(sameRatio(await headline('engagement_rate', 'previous'), previousAgg.data[0]?.engagement_rate))
    })

    it('opens a shared link (monthly, split by platform, three platforms, last 12 months) after signing in again', async () => {
      await page.goto(`${server.baseUrl}/dashboard/?granularity=monthly&split=1&platforms=fb,ig,tk&period=12m`)
      // The token lived in the page's memory only: a new page load asks for the key pair again.
      await page.getByLabel('API client key').waitFor()
      await signIn(page, server.partner)
      await waitForLoads(page)
      assert.equal(await page.getByRole('radio', { name: 'Monthly' }).isChecked(), true)
      assert.equal(await page.getByRole('checkbox', { name: /^Split by platform/ }).isChecked(), true)
      for (const name of ['Facebook', 'Instagram', 'TikTok']) assert.equal(await page.getByRole('checkbox', { name, exact: true }).isChecked(), true, name)
      assert.equal(await page.getByRole('checkbox', { name: 'YouTube', exact: true }).isChecked(), false)

      const since = new Date(Date.UTC(Number(today.slice(0, 4)), Number(today.slice(5, 7)) - 12, 1)).toISOString().slice(0, 10)
      const query = { type: 'monthly' as const, since, until: today, platform: ['fb', 'ig', 'tk'] as Array<'fb' | 'ig' | 'tk'>, split_by_platform: true, gaps: 'carry' as const }
      const monthly = await api.analytics(query)
      for (const metric of ['views', 'followers', 'engagement_rate']) {
        assertSeriesTable(await readSeriesTable(page, metric), monthly.data, 'month', (entry) => PLATFORM_NAMES[String(entry.platform)] ?? '', metric)
      }
      const charts = section(/^Over time/)
      const args = await exportArgsShown(charts)
      assert.deepEqual(args, ['analytics', '--type', 'monthly', '--since', since, '--until', today, '--platform', 'fb,ig,tk', '--split-by-platform', '--gaps', 'carry', '--format', 'csv'])
      assert.equal((await downloadCsv(page, charts)).text, await exportFile(server.baseUrl, server.partner, args))
    })

    it('compares platforms this period and the previous one, metric picked in the URL', async () => {
      await page.getByRole('link', { name: 'Platforms' }).click()
      await waitForLoads(page)
      assert.equal(new URL(page.url()).searchParams.get('view'), 'platforms')
      const since = new URL(page.url()).searchParams.get('period') === '12m' ? new Date(Date.UTC(Number(today.slice(0, 4)), Number(today.slice(5, 7)) - 12, 1)).toISOString().slice(0, 10) : ''
      const days = Math.round((Date.parse(today) - Date.parse(since)) / 86_400_000) + 1
      const current = await api.analytics({ type: 'agg', since, until: today, platform: ['fb', 'ig', 'tk'], split_by_platform: true, gaps: 'carry' })
      const before = await api.analytics({ type: 'agg', since: addDays(since, -days), until: addDays(since, -1), platform: ['fb', 'ig', 'tk'], split_by_platform: true, gaps: 'carry' })
      const check = async (metric: string) => {
        const bars = page.locator(`[data-bars="${metric}"]`)
        await bars.waitFor()
        assert.equal(await bars.locator('tbody tr').count(), 3)
        for (const [response, part] of [[current, 'current'], [before, 'previous']] as const) {
          for (const entry of response.data as Array<Record<string, unknown>>) {
            const shown = shownNumber(await bars.locator(`tr[data-platform="${String(entry.platform)}"] [data-${part}]`).textContent() ?? '')
            if (metric === 'engagement_rate') assert.ok(sameRatio(shown, entry[metric]), `${String(entry.platform)} ${part}`)
            else assert.equal(shown, entry[metric], `${String(entry.platform)} ${part}`)
          }
        }
      }
      await check('views')
      await page.getByLabel('Metric').selectOption('engagement_rate')
      assert.equal(new URL(page.url()).searchParams.get('metric'), 'engagement_rate')
      await check('engagement_rate')

      const panel = section('Platforms compared')
      const args = await exportArgsShown(panel)
      assert.deepEqual(args, ['analytics', '--type', 'agg', '--since', since, '--until', today, '--platform', 'fb,ig,tk', '--split-by-platform', '--gaps', 'carry', '--format', 'csv'])
      assert.equal((await downloadCsv(page, panel)).text, await exportFile(server.baseUrl, server.partner, args))
    })

    it('shows the agg table by account with the API total and average rows; unreported revenue is a dash', async () => {
      // LinkedIn accounts are never monetised in the demo data: their revenue is null, not 0.
      await page.getByRole('checkbox', { name: /^Split by platform/ }).uncheck()
      for (const name of ['Facebook', 'Instagram', 'TikTok']) await page.getByRole('checkbox', { name, exact: true }).uncheck()
      await page.getByRole('checkbox', { name: 'LinkedIn', exact: true }).check()
      await page.getByRole('radio', { name: /^By account/ }).check()
      await applyFilters(page)
      await page.getByRole('link', { name: 'Table' }).click()
      await waitForLoads(page)

      const accountIds = brands.flatMap((brand) => (brand.li_accounts ?? []).map((account) => account.account_id)).sort((a, b) => a - b)
      const since = new Date(Date.UTC(Number(today.slice(0, 4)), Number(today.slice(5, 7)) - 12, 1)).toISOString().slice(0, 10)
      const agg = await api.analytics({ type: 'agg', since, until: today, account_id: accountIds, platform: ['li'], gaps: 'carry' })
      const table = page.locator('[data-agg-table="scope"]')
      const rows = table.locator('tbody tr')
      assert.equal(await rows.count(), agg.data.length)
      for (const [index, entry] of (agg.data as Array<Record<string, unknown>>).entries()) {
        const row = rows.nth(index)
        assert.equal(await row.locator('th').textContent(), entry.name)
        for (const field of ['views', 'interactions', 'followers', 'new_followers', 'posts_count', 'posts_per_day']) {
          assert.equal(shownNumber(await row.locator(`[data-field="${field}"]`).textContent() ?? ''), entry[field], field)
        }
        assert.ok(sameRatio(shownNumber(await row.locator('[data-field="engagement_rate"]').textContent() ?? ''), entry.engagement_rate))
        assert.equal(entry.revenue, null)
        assert.equal(shownNumber(await row.locator('[data-field="revenue"]').textContent() ?? ''), null)
      }
      const aggregates = agg.aggregates as unknown as { total: Record<string, unknown>, average: Record<string, unknown> }
      for (const kind of ['total', 'average'] as const) {
        for (const field of ['views', 'interactions', 'followers', 'new_followers', 'posts_count', 'posts_per_day', 'revenue']) {
          assert.equal(shownNumber(await table.locator(`tfoot tr[data-row="${kind}"] [data-field="${field}"]`).textContent() ?? ''), aggregates[kind][field], `${kind} ${field}`)
        }
      }
      const panel = section(/^Totals by account/)
      const args = await exportArgsShown(panel)
      assert.deepEqual(args, ['analytics', '--type', 'agg', '--since', since, '--until', today, '--account-id', accountIds.join(','), '--platform', 'li', '--gaps', 'carry', '--format', 'csv'])
      assert.equal((await downloadCsv(page, panel)).text, await exportFile(server.baseUrl, server.partner, args))
    })

    it('lists the top posts with the order_by and post_type pickers; the CSV is the export when every post is shown', async () => {
      await page.getByRole('link', { name: 'Top posts' }).click()
      await waitForLoads(page)
      await page.getByLabel('Order by').selectOption('engagement_rate')
      await waitForLoads(page)
      await page.getByLabel('Post type').selectOption('document')
      await waitForLoads(page)
      const search = new URL(page.url()).searchParams
      assert.equal(search.get('order_by'), 'engagement_rate')
      assert.equal(search.get('post_type'), 'document')
      const since = new Date(Date.UTC(Number(today.slice(0, 4)), Number(today.slice(5, 7)) - 12, 1)).toISOString().slice(0, 10)
      const posts = await api.posts({ since, until: today, platform: ['li'], post_type: ['document'], order_by: 'engagement_rate', limit: 10 })
      const rows = page.locator('[data-posts-table] tbody tr')
      assert.deepEqual(await rows.evaluateAll((elements) => elements.map((row) => row.getAttribute('data-post'))), posts.data.map((post) => post.id))
      for (const [index, post] of (posts.data as Array<Record<string, unknown>>).entries()) {
        assert.ok(sameRatio(shownNumber(await rows.nth(index).locator('[data-field="engagement_rate"]').textContent() ?? ''), post.engagement_rate))
        assert.equal(shownNumber(await rows.nth(index).locator('[data-field="views"]').textContent() ?? ''), post.views)
      }

      // A week of LinkedIn posts of every type fits in one page of 50: the download is the whole export.
      // The period first: each picker below changes the address, and the filter form resets what is
      // being edited to the address a frame later (its effect), which would undo a period chosen
      // right after a picker. Each change is waited for before the next.
      await page.getByLabel('Period', { exact: true }).selectOption('7d')
      await applyFilters(page)
      await page.getByLabel('Post type').selectOption('')
      await waitForLoads(page)
      await page.getByLabel('Show').selectOption('50')
      await waitForLoads(page)
      const week = await api.posts({ since: addDays(today, -6), until: today, platform: ['li'], order_by: 'engagement_rate', limit: 50 })
      assert.ok(week.data.length > 0 && week.next_cursor === null, 'the demo has a few LinkedIn posts a week')
      assert.equal(await page.locator('[data-posts-count]').textContent(), `All ${week.data.length} matching posts.`)
      const panel = section('Top posts')
      const args = await exportArgsShown(panel)
      assert.deepEqual(args, ['posts', '--since', addDays(today, -6), '--until', today, '--platform', 'li', '--order-by', 'engagement_rate', '--page-size', '50', '--format', 'csv'])
      assert.equal((await downloadCsv(page, panel)).text, await exportFile(server.baseUrl, server.partner, args))
    })

    it('passes axe-core on every view at 375 and 1440 px, with a screenshot of each', async () => {
      const shots: string[] = []
      await page.setViewportSize({ width: 1440, height: 900 })
      await page.goto(`${server.baseUrl}/dashboard/`)
      for (const width of [1440, 375]) {
        await page.setViewportSize({ width, height: 900 })
        await page.getByLabel('API client key').waitFor()
        await assertAccessible(page, `sign-in at ${width}px`)
        shots.push(await screenshot(page, dialect, 'sign-in'))
      }
      await page.setViewportSize({ width: 1440, height: 900 })
      await signIn(page, server.partner)
      for (const view of ['Overview', 'Platforms', 'Table', 'Top posts']) {
        await page.getByRole('link', { name: view }).click()
        await waitForLoads(page)
        for (const width of [1440, 375]) {
          await page.setViewportSize({ width, height: 900 })
          // The charts follow their container's width (ResizeObserver): wait for the redraw.
          await page.waitForFunction((max) => [...document.querySelectorAll('.chart canvas')].every((canvas) => canvas.getBoundingClientRect().width <= max), width)
          assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), width, `${view} fits ${width}px without sideways scrolling`)
          // The chart's data table is checked open, and folded again for the picture.
          const dataTable = page.locator('[data-chart="views"] summary')
          if (view === 'Overview') await dataTable.click()
          await assertAccessible(page, `${view} at ${width}px`)
          if (view === 'Overview') await dataTable.click()
          shots.push(await screenshot(page, dialect, view.toLowerCase().replace(' ', '-')))
          if (view === 'Overview' || view === 'Top posts') await docsImage(page, dialect, view.toLowerCase().replace(' ', '-'))
        }
        await page.setViewportSize({ width: 1440, height: 900 })
      }
      assert.equal(shots.length, 10)
    })

    it('signs out: the sign-in form says so, and nothing of the session is left', async () => {
      await page.getByRole('button', { name: 'Sign out' }).click()
      await page.locator('[data-state="signed-out"]').waitFor()
      await page.getByLabel('API client key').waitFor()
      assert.equal(await page.getByLabel('API client key').inputValue(), '')
      assert.deepEqual(await page.evaluate(() => [localStorage.length, sessionStorage.length, document.cookie]), [0, 0, ''])
      await page.goBack()
      assert.equal(await page.getByRole('button', { name: 'Sign out' }).count(), 0, 'Back does not bring the session back')
      assert.deepEqual(browser.faults, [], 'no page error and no CSP violation during the whole journey')
    })
  })
}
