import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { gunzipSync } from 'node:zlib'
import { after, before, describe, it } from 'node:test'
import type { Page, Request } from 'playwright-core'
import type { PartnerAnalyticsClient } from '../../packages/client/src/client.js'
import type { ReportRequest } from '../../packages/client/src/types.js'
import { DIALECTS } from '../helpers/stores.js'
import { apiClient } from './helpers/api.js'
import { assertAccessible, docsImage, launchBrowser, sameRatio, screenshot, shownNumber, signIn, UI_TIMEOUT_MS, waitForLoads, type BrowserSession } from './helpers/browser.js'
import { ensureDashboardBuilt } from './helpers/dashboard-build.js'
import { startDashboardServer, type DashboardServer } from './helpers/dashboard-server.js'

/**
 * The dashboard's views built on POST /reports and POST /exports (issues 28, 29 and 30), in
 * Chromium, on the demo data ending 2026-11-24: the Summary is one POST /reports with the
 * comparison and include status, its figures the report's and its followers free of a missing
 * account's drop; Top posts names no comparison and pages past 50; Top accounts is the report's
 * top N; an export created from the page runs, shows its progress and its download serves the file
 * the API lists. Expectations come from the API's own answers to the same requests.
 */

const LAST_DAY = '2026-11-24'
const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/dashboard/reports', import.meta.url))
const QUIET = { info: () => {}, warn: () => {}, error: () => {} }

interface Sent { method: string, path: string, search: string, body: unknown }

function sentOf (request: Request): Sent | undefined {
  const url = new URL(request.url())
  if (url.pathname.startsWith('/dashboard/')) return undefined
  const data = request.postData()
  return { method: request.method(), path: url.pathname, search: url.search, body: data === null ? undefined : JSON.parse(data) as unknown }
}

for (const dialect of DIALECTS) {
  describe(`dashboard: reports, top posts and accounts, exports, in Chromium (${dialect})`, { timeout: 900_000 }, () => {
    let server: DashboardServer
    let browser: BrowserSession
    let page: Page
    let api: PartnerAnalyticsClient
    const sent: Sent[] = []

    const view = async (name: string) => {
      sent.length = 0
      await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name, exact: true }).click()
      await waitForLoads(page)
    }
    const card = (key: string) => page.locator(`[data-headline="${key}"]`)

    before(async () => {
      await ensureDashboardBuilt()
      mkdirSync(ARTIFACTS, { recursive: true })
      server = await startDashboardServer(dialect, { until: LAST_DAY })
      // An instance whose export worker runs, as `serve` starts it.
      const withWorker = await server.listen()
      withWorker.app.services.exports.worker.start(QUIET)
      api = apiClient(withWorker.baseUrl, server.partner)
      browser = await launchBrowser(1440)
      page = browser.page
      page.on('request', (request) => { const item = sentOf(request); if (item !== undefined) sent.push(item) })
      await page.goto(`${withWorker.baseUrl}/dashboard/`)
      await signIn(page, server.partner)
      await waitForLoads(page)
    })
    after(async () => {
      await browser?.close()
      await server?.close()
    })

    it('asks the Summary as one POST /reports with the comparison and include status, and shows its figures', async () => {
      const reports = sent.filter((item) => item.method === 'POST' && item.path === '/reports')
      assert.equal(reports.length, 1, JSON.stringify(sent.map((item) => `${item.method} ${item.path}${item.search}`)))
      const request = reports[0]?.body as ReportRequest
      const period = { since: '2026-10-28', until: LAST_DAY }
      const previous = { since: '2026-09-30', until: '2026-10-27' }
      assert.deepEqual(request, { metrics: ['views', 'interactions', 'engagement_rate', 'followers', 'new_followers', 'posts_count'], ...period, comparison: previous, include: ['status'], gaps: 'carry' })
      assert.equal(sent.filter((item) => item.path === '/analytics/' && item.search.includes('type=agg')).length, 0, 'no agg arithmetic behind the Summary')
      assert.match(await page.locator('[data-period]').textContent() ?? '', /compared with 2026-09-30 – 2026-10-27/)

      const answer = await api.report(request)
      const row = answer.rows[0]
      assert.ok(row?.comparison !== undefined && row.comparison !== null)
      for (const key of request.metrics) {
        const shown = shownNumber(await card(key).locator('[data-value]').textContent() ?? '')
        const then = shownNumber(await card(key).locator('[data-previous]').textContent() ?? '')
        if (key === 'engagement_rate') {
          assert.ok(sameRatio(shown, row.metrics[key]), `${key}: ${String(shown)} shown, ${String(row.metrics[key])} reported`)
          assert.ok(sameRatio(then, row.comparison.metrics[key]), `${key}, previous period`)
        } else {
          assert.equal(shown, row.metrics[key], key)
          assert.equal(then, row.comparison.metrics[key], `${key}, previous period`)
        }
      }
      // The change: the report's when its comparison is complete, else the same rule over its figures.
      const now = row.metrics.views as number
      const before = row.comparison.metrics.views as number
      const relative = row.comparison.complete ? row.comparison.relative_change.views as number : (now - before) / before
      const change = card('views').locator('[data-change]')
      assert.equal(await change.getAttribute('data-change-source'), row.comparison.complete ? 'report' : 'page')
      assert.ok((await change.textContent())?.includes(`${relative >= 0 ? '+' : '−'}${Math.abs(relative * 100).toFixed(1)} %`), await change.textContent() ?? '')
      const status = await page.locator('[data-summary-status]').textContent() ?? ''
      assert.ok(status.startsWith(`This period: ${(row.accounts_reported ?? 0).toLocaleString('en-US')} of ${(row.accounts_expected ?? 0).toLocaleString('en-US')} account-days reported. Previous period: `), status)
      assert.equal(status.endsWith("not wholly: each change is worked out from the report's two figures by its rule."), !row.comparison.complete, status)
    })

    it('shows a period ending on a day an account sent nothing without a drop in followers (brand 4, 2026-11-04)', async () => {
      await page.locator('#period').selectOption('custom')
      await page.locator('#since').fill('2026-10-06')
      await page.locator('#until').fill('2026-11-04')
      const brandBoxes = page.getByRole('group', { name: 'Brands' }).getByRole('checkbox')
      for (let index = 0; index < await brandBoxes.count(); index++) {
        const box = brandBoxes.nth(index)
        const wanted = (await box.getAttribute('value')) === '4'
        if (await box.isChecked() !== wanted) await box.click()
      }
      sent.length = 0
      await page.getByRole('button', { name: 'Apply filters' }).click()
      await waitForLoads(page)
      const followers = shownNumber(await card('followers').locator('[data-value]').textContent() ?? '')
      const dayBefore = await api.analytics({ type: 'agg', since: '2026-11-03', until: '2026-11-03', brand_id: [4] })
      const missingDay = await api.analytics({ type: 'agg', since: '2026-11-04', until: '2026-11-04', brand_id: [4] })
      const complete = dayBefore.aggregates.total.followers
      assert.ok(missingDay.aggregates.total.followers < complete / 2, 'the day an account sent nothing reads as a fall when a gap is a zero')
      assert.ok(followers !== null && followers >= complete * 0.98 && followers <= complete * 1.02, `followers ${String(followers)}, against ${complete} the day before`)
      const request = sent.find((item) => item.path === '/reports')?.body as ReportRequest
      assert.deepEqual(request.filters, { brand_id: [4] })
      await page.locator('section.panel').filter({ has: page.getByRole('heading', { name: 'Summary' }) }).screenshot({ path: `${ARTIFACTS}/summary-brand-4-${dialect}-1440.png` })
      assert.equal(followers, (await api.report(request)).rows[0]?.metrics.followers)
    })

    it('Top posts names no comparison, and pages past 50 with the API\'s cursor', async () => {
      await page.locator('#period').selectOption('90d')
      const brandBoxes = page.getByRole('group', { name: 'Brands' }).getByRole('checkbox')
      for (let index = 0; index < await brandBoxes.count(); index++) if (await brandBoxes.nth(index).isChecked()) await brandBoxes.nth(index).click()
      await page.getByRole('button', { name: 'Apply filters' }).click()
      await view('Top posts')
      assert.doesNotMatch(await page.locator('[data-period]').textContent() ?? '', /compared/)
      sent.length = 0
      await page.getByLabel('Show', { exact: true }).selectOption('50')
      await waitForLoads(page)
      assert.equal(await page.locator('[data-posts-count]').textContent(), 'The top 50; more posts match.')
      const query = { since: '2026-08-27', until: LAST_DAY, order_by: 'views' as const, limit: 50 }
      const first = await api.posts(query)
      assert.ok(first.next_cursor !== null)
      const second = await api.posts({ ...query, cursor: first.next_cursor })
      const ids = async () => await page.locator('[data-posts-table] tbody tr').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-post')))
      assert.deepEqual(await ids(), first.data.map((post) => String(post.id)))

      sent.length = 0
      await page.getByRole('button', { name: 'Next page' }).click()
      await waitForLoads(page)
      assert.deepEqual(await ids(), second.data.map((post) => String(post.id)))
      const asked = sent.filter((item) => item.path === '/posts')
      assert.equal(asked.length, 1)
      // The page's own cursor (a cursor carries the time of its walk, so it is not the test's): the API's page for it is the one shown.
      const cursor = new URLSearchParams(asked[0]?.search).get('cursor')
      assert.ok(cursor !== null && cursor !== '')
      assert.deepEqual((await api.posts({ ...query, cursor })).data.map((post) => String(post.id)), second.data.map((post) => String(post.id)))
      assert.equal(await page.locator('[data-posts-count]').textContent(), `Posts 51–${50 + second.data.length}${second.next_cursor === null ? ', the last of the matching posts.' : '; more posts match.'}`)
      await screenshot(page, 'reports', `top-posts-page-2-${dialect}`)
      await docsImage(page, dialect, 'top-posts-page-2')
      await page.getByRole('button', { name: 'Previous page' }).click()
      await waitForLoads(page)
      assert.deepEqual(await ids(), first.data.map((post) => String(post.id)))
    })

    it('Top accounts is the report\'s top N by the chosen metric, with each account\'s days reported and change', async () => {
      await view('Top accounts')
      assert.match(await page.locator('[data-period]').textContent() ?? '', /compared with 2026-05-29 – 2026-08-26/)
      sent.length = 0
      await page.getByLabel('By', { exact: true }).selectOption('engagement_rate')
      await waitForLoads(page)
      const request = sent.find((item) => item.method === 'POST' && item.path === '/reports')?.body as ReportRequest
      assert.deepEqual({ dimensions: request.dimensions, order_by: request.order_by, limit: request.limit, include: request.include, since: request.since, until: request.until, comparison: request.comparison, gaps: request.gaps },
        { dimensions: ['account'], order_by: [{ metric: 'engagement_rate', desc: true }], limit: 50, include: ['status'], since: '2026-08-27', until: LAST_DAY, comparison: { since: '2026-05-29', until: '2026-08-26' }, gaps: 'carry' })
      const answer = await api.report(request)
      const before = (await api.dataStatus({ since: '2026-05-29', until: '2026-08-26', limit: 100 })).data
      let changes = 0
      const rows = page.locator('[data-accounts-table] tbody tr')
      assert.equal(await rows.count(), answer.rows.length)
      assert.ok(answer.rows.length > 10)
      for (const [index, row] of answer.rows.entries()) {
        const shown = rows.nth(index)
        assert.equal(await shown.getAttribute('data-account'), `${String(row.platform)}:${String(row.account_id)}`)
        assert.equal(await shown.locator('th').textContent(), row.account_name)
        assert.ok(sameRatio(shownNumber(await shown.locator('[data-field="engagement_rate"]').textContent() ?? ''), row.metrics.engagement_rate), `rank ${index + 1}`)
        assert.equal(shownNumber(await shown.locator('[data-field="views"]').textContent() ?? ''), row.metrics.views)
        assert.equal(shownNumber(await shown.locator('[data-field="followers"]').textContent() ?? ''), row.metrics.followers)
        assert.equal(await shown.locator('[data-field="status"]').textContent(), `${(row.accounts_reported ?? 0).toLocaleString('en-US')} of ${(row.accounts_expected ?? 0).toLocaleString('en-US')}`)
        // The change of the ordered metric: only against a previous period at least 90 % reported by this account.
        const change = await shown.locator('[data-field="change"]').textContent() ?? ''
        const days = Math.min(90, before.find((account) => account.platform === row.platform && account.account_id === row.account_id)?.days_reported ?? 0)
        if (days < 81) {
          assert.equal(change, `No change shown: previous period ${(Math.floor(days / 90 * 1000) / 10).toFixed(1)} % reported`, `rank ${index + 1}`)
        } else {
          const now = row.metrics.engagement_rate as number
          const then = row.comparison?.metrics.engagement_rate as number
          const relative = row.comparison?.complete === true ? row.comparison.relative_change.engagement_rate as number : (now - then) / then
          assert.ok(change.startsWith(`${relative >= 0 ? '+' : '−'}${Math.abs(relative * 100).toFixed(1)} % (`), `rank ${index + 1}: ${change}`)
          changes++
        }
      }
      assert.ok(changes > 0, 'some accounts were compared')
      assert.equal(await page.locator('[data-accounts-count]').textContent(),
        answer.total_rows <= answer.rows.length ? `All ${answer.rows.length} accounts with data in the period.` : `The top ${answer.rows.length} of ${answer.total_rows} accounts with data in the period.`)
      await page.getByLabel('Show', { exact: true }).selectOption('10')
      await waitForLoads(page)
      assert.equal(await rows.count(), 10)
      assert.equal(await page.locator('[data-accounts-count]').textContent(), `The top 10 of ${answer.total_rows} accounts with data in the period.`)
      // The table fits its panel at 1440 px: its last column ends inside the scroll region.
      const region = await page.locator('[data-accounts-table]').locator('xpath=..').boundingBox()
      const last = await page.locator('[data-accounts-table] thead th').last().boundingBox()
      assert.ok(region !== null && last !== null && last.x + last.width <= region.x + region.width + 0.5, `last column ends at ${String(last && last.x + last.width)}, the region at ${String(region && region.x + region.width)}`)
      await assertAccessible(page, 'top accounts')
      await screenshot(page, 'reports', `top-accounts-${dialect}`)
      await docsImage(page, dialect, 'top-accounts')
    })

    it('creates an export from the page, shows its progress until it succeeds, and its download serves the file', async () => {
      await view('Exports')
      assert.equal(await page.locator('[data-period]').count(), 0, 'the export form has its own period')
      assert.equal(await page.getByRole('form', { name: 'Filters' }).count(), 0, 'the analytics filters do not apply here')
      // Every state the job is shown in, as the page draws it (a MutationObserver, so none is missed between two looks).
      // A script as text: tsx would name the observer's callback with a helper the page does not have.
      await page.evaluate(`(() => {
        const seen = []
        window.exportStates = seen
        new MutationObserver(() => {
          const item = document.querySelector('[data-export]')
          if (item === null) return
          const state = (item.getAttribute('data-status') ?? '') + '|' + (item.querySelector('[data-export-status]')?.textContent ?? '')
          if (seen.at(-1) !== state) seen.push(state)
        }).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true })
      })()`)
      await page.getByLabel('Dataset', { exact: true }).selectOption('daily')
      await page.getByLabel('Format', { exact: true }).selectOption('csv')
      await page.getByLabel('Brand', { exact: true }).selectOption({ label: (await api.me()).brands.find((brand) => brand.brand_id === 2)?.brand_name ?? '' })
      sent.length = 0
      await page.getByRole('button', { name: 'Create export' }).click()
      await page.locator('[data-export-notice]').waitFor()
      const created = sent.find((item) => item.method === 'POST' && item.path === '/exports')
      assert.deepEqual(created?.body, { dataset: 'daily', format: 'csv', since: '2026-08-27', until: LAST_DAY, brand_id: [2] })
      const id = /Export (exp_\w+) queued/.exec(await page.locator('[data-export-notice]').textContent() ?? '')?.[1]
      assert.ok(id !== undefined)
      const item = page.locator(`[data-export="${id}"]`)
      await page.waitForFunction((selector) => document.querySelector(selector)?.getAttribute('data-status') === 'succeeded', `[data-export="${id}"]`, { timeout: UI_TIMEOUT_MS * 2 })
      assert.ok(sent.some((request) => request.method === 'GET' && request.path === `/exports/${id}`), 'the page polled the job')
      const states = await page.evaluate(() => (window as unknown as { exportStates: string[] }).exportStates)
      assert.equal(states[0], 'queued|queued Queued: waiting for a worker', states.join(' → '))
      assert.match(states.at(-1) ?? '', /^succeeded\|/)
      for (const state of states.slice(1, -1)) assert.match(state, /^(queued\|queued Queued: waiting for a worker|running\|running Running: [\d,]+ rows( of [\d,]+ written \(\d+ %\)| written))$/, state)

      const job = await api.getExport(id)
      assert.equal(job.status, 'succeeded')
      const files = job.files ?? []
      assert.ok(files.length >= 3, 'one file per month of the period')
      assert.equal(await item.locator('[data-export-status]').textContent(), `succeeded ${job.progress.rows_written.toLocaleString('en-US')} rows of ${(job.progress.rows_estimate ?? 0).toLocaleString('en-US')} written (100 %)`)
      assert.deepEqual(await item.locator('[data-file]').evaluateAll((buttons) => buttons.map((button) => button.getAttribute('data-file'))), files.map((file) => file.name))
      const file = files[0]
      assert.ok(file !== undefined)
      const [download] = await Promise.all([page.waitForEvent('download'), item.locator(`[data-file="${file.name}"]`).click()])
      assert.equal(download.suggestedFilename(), file.name)
      const bytes = readFileSync(await download.path())
      assert.equal(bytes.length, file.bytes)
      assert.equal(createHash('sha256').update(bytes).digest('hex'), file.sha256)
      const lines = gunzipSync(bytes).toString('utf8').trimEnd().split(/\r?\n/)
      assert.match(lines[0] ?? '', /^date,brand_id,platform,account_id,/)
      assert.equal(lines.length - 1, file.rows)

      // The list is the API's, newest first.
      const listed = await api.exports({ limit: 20 })
      assert.deepEqual(await page.locator('[data-export]').evaluateAll((items) => items.map((element) => element.getAttribute('data-export'))), listed.data.map((job) => job.id))
      await assertAccessible(page, 'exports')
      await screenshot(page, 'reports', `exports-${dialect}`)
      await docsImage(page, dialect, 'exports')

      // Delete: the job and its files go, the API forgets it.
      await item.locator(`[data-delete="${id}"]`).click()
      await page.locator('[data-export-notice]').filter({ hasText: `Export ${id} and its files removed.` }).waitFor()
      assert.equal(await item.count(), 0)
      await assert.rejects(api.getExport(id), (error: Error & { status?: number }) => error.status === 404)
      assert.deepEqual(browser.faults, [])
    })

    it('fits a phone: no sideways scroll on Top accounts and Exports at 390 px', async () => {
      await page.setViewportSize({ width: 390, height: 844 })
      try {
        for (const name of ['Top accounts', 'Exports']) {
          await view(name)
          const [scroll, client] = await page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth])
          assert.ok(scroll <= client, `${name}: the page is ${scroll} px wide in a ${client} px window`)
          await assertAccessible(page, `${name} at 390 px`)
          await screenshot(page, 'reports', `${name.toLowerCase().replace(' ', '-')}-${dialect}`)
        }
      } finally {
        await page.setViewportSize({ width: 1440, height: 900 })
      }
    })
  })
}
