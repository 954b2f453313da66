import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Page, Request } from 'playwright-core'
import { DIALECTS } from '../helpers/stores.js'
import { assertAccessible, drawnXTicks, launchBrowser, screenshot, signIn, waitForLoads, type BrowserSession } from './helpers/browser.js'
import { ensureDashboardBuilt } from './helpers/dashboard-build.js'
import { startDashboardServer, type DashboardServer } from './helpers/dashboard-server.js'
import { outsideTheirBox, sidewaysScroll } from './helpers/layout.js'

/**
 * Issue 28's dates, in Chromium started under a US locale (`--lang=en-US`, context locale
 * `en-US`), on the demo data ending 2026-11-24: the date fields show and take ISO text
 * (YYYY-MM-DD), refuse a malformed date or one after the last day with data next to the field and
 * ask nothing, apply a valid one; the axes' dates are ISO.
 */

const LAST_DAY = '2026-11-24'
const CHARTS = ['views', 'interactions', 'followers', 'engagement_rate']

/**
 * The text Chromium draws inside a form field, read from its accessibility tree (the static texts
 * under the field): a native date field under en-US draws "10", "/", "28", "/", "2026", though its
 * `value` is "2026-10-28".
 */
async function drawnText (page: Page, selector: string): Promise<string> {
  const cdp = await page.context().newCDPSession(page)
  try {
    const { root } = await cdp.send('DOM.getDocument', { depth: 0 })
    const { nodeId } = await cdp.send('DOM.querySelector', { nodeId: root.nodeId, selector })
    const { node } = await cdp.send('DOM.describeNode', { nodeId })
    const { nodes } = await cdp.send('Accessibility.getFullAXTree')
    const byId = new Map(nodes.map((item) => [item.nodeId, item]))
    const field = nodes.find((item) => item.backendDOMNodeId === node.backendNodeId)
    assert.ok(field !== undefined, `${selector} is in the accessibility tree`)
    const texts: string[] = []
    const walk = (id: string) => {
      const item = byId.get(id)
      if (item === undefined) return
      if (item.role?.value === 'StaticText') texts.push(String(item.name?.value ?? ''))
      for (const child of item.childIds ?? []) walk(child)
    }
    for (const child of field.childIds ?? []) walk(child)
    return texts.join('')
  } finally {
    await cdp.detach()
  }
}

/**
 * Back from the Exports view to the Overview, its loads done. Back is a same-document navigation:
 * the page renders the Overview on its popstate, which may come after goBack returns, and
 * waitForLoads alone would pass on the Exports view still shown. The filters are the Overview's;
 * once its loads end, the filter form's effect that resets what is edited (run with the loads'
 * start) has run too, so the next test's edits stay.
 */
async function backToOverview (page: Page): Promise<void> {
  await page.goBack()
  // Attached, not visible: at 390 px the filters are folded.
  await page.locator('form[aria-label="Filters"]').waitFor({ state: 'attached' })
  await waitForLoads(page)
}

/** Types into a field as a person does: click, select what is there, type. */
async function typeInto (page: Page, selector: string, text: string): Promise<void> {
  await page.locator(selector).click()
  await page.keyboard.press('Control+A')
  if (text === '') await page.keyboard.press('Backspace')
  else await page.keyboard.type(text)
}

for (const dialect of DIALECTS) {
  describe(`dashboard: ISO dates under a US locale, in Chromium (${dialect})`, { timeout: 900_000 }, () => {
    let server: DashboardServer
    let browser: BrowserSession
    let page: Page
    /** The data requests the page made (not the change feed's polls, which run on their own). */
    const asked: string[] = []

    before(async () => {
      await ensureDashboardBuilt()
      server = await startDashboardServer(dialect, { until: LAST_DAY })
      browser = await launchBrowser(1440, { lang: 'en-US' })
      page = browser.page
      page.on('request', (request: Request) => {
        if (request.resourceType() === 'fetch' && !new URL(request.url()).pathname.endsWith('/changes')) asked.push(`${request.method()} ${request.url()} ${request.postData() ?? ''}`)
      })
      await page.goto(`${server.baseUrl}/dashboard/?brands=1&period=28d`)
      await signIn(page, server.partner)
      await waitForLoads(page)
    })
    after(async () => {
      await browser?.close()
      await server?.close()
    })

    it('shows the period\'s dates as ISO text in the date fields, on the filters and the export form', async () => {
      assert.equal(await page.locator('[data-period] strong').textContent(), `2026-10-28 – ${LAST_DAY}`)
      assert.equal(await drawnText(page, '#since'), '2026-10-28', 'the first day drawn as ISO text')
      assert.equal(await drawnText(page, '#until'), LAST_DAY, 'the last day drawn as ISO text')
      await page.getByLabel('Period', { exact: true }).selectOption('custom')
      assert.equal(await drawnText(page, '#since'), '2026-10-28', 'custom dates start from the ones shown')
      assert.equal(await page.locator('#since').getAttribute('placeholder'), 'YYYY-MM-DD')
      assert.equal(await page.locator('#last-day').textContent(), `Data goes through ${LAST_DAY}.`)

      await page.getByRole('link', { name: 'Exports' }).click()
      await page.locator('#export-since').waitFor()
      assert.equal(await drawnText(page, '#export-since'), '2026-10-28', 'the export form\'s first day drawn as ISO text')
      assert.equal(await drawnText(page, '#export-until'), LAST_DAY, 'the export form\'s last day drawn as ISO text')
      await backToOverview(page)
    })

    it('refuses a malformed date or one after the last day with data next to its field, and asks nothing', async () => {
      await page.getByLabel('Period', { exact: true }).selectOption('custom')
      const before = asked.length
      const cases = [
        { field: 'since', text: '10/28/2026', message: `"10/28/2026" is not a date: write it as YYYY-MM-DD, e.g. ${LAST_DAY}.` },
        { field: 'since', text: '2026-02-29', message: `"2026-02-29" is not a date: write it as YYYY-MM-DD, e.g. ${LAST_DAY}.` },
        { field: 'since', text: '2026-11-1', message: `"2026-11-1" is not a date: write it as YYYY-MM-DD, e.g. ${LAST_DAY}.` },
        { field: 'since', text: '', message: `Enter a date as YYYY-MM-DD, e.g. ${LAST_DAY}.` },
        { field: 'until', text: '2026-11-25', message: `The data goes through ${LAST_DAY}: choose a day on or before it.` },
        { field: 'until', text: '2027-01-01', message: `The data goes through ${LAST_DAY}: choose a day on or before it.` },
      ]
      for (const c of cases) {
        await typeInto(page, '#since', '2026-11-01')
        await typeInto(page, '#until', '2026-11-10')
        await typeInto(page, `#${c.field}`, c.text)
        await page.getByRole('button', { name: 'Apply filters' }).click()
        const error = page.locator(`#${c.field}-error`)
        await error.filter({ hasText: c.message }).waitFor()
        assert.equal(await error.textContent(), c.message, `${c.text}: the message`)
        assert.equal(await error.getAttribute('role'), 'alert', `${c.text}: announced`)
        const input = page.locator(`#${c.field}`)
        assert.equal(await input.getAttribute('aria-invalid'), 'true', `${c.text}: the field is marked invalid`)
        assert.ok((await input.getAttribute('aria-describedby') ?? '').split(' ').includes(`${c.field}-error`), `${c.text}: the field is described by its message`)
        assert.equal(await page.evaluate(() => document.activeElement?.id), c.field, `${c.text}: the field has the focus`)
        // The message is next to its field: just under it, in the filters.
        const [fieldBox, errorBox] = [await input.boundingBox(), await error.boundingBox()]
        assert.ok(fieldBox !== null && errorBox !== null && errorBox.y >= fieldBox.y + fieldBox.height - 1 && errorBox.y - (fieldBox.y + fieldBox.height) < 40, `${c.text}: the message under the field (${JSON.stringify(fieldBox)}, ${JSON.stringify(errorBox)})`)
        assert.equal(new URL(page.url()).searchParams.get('since'), null, `${c.text}: the address keeps the period shown`)
        assert.equal(await page.locator('[data-period] strong').textContent(), `2026-10-28 – ${LAST_DAY}`, `${c.text}: the period shown stays`)
      }
      await assertAccessible(page, 'the filters with a date refused')

      // Leaving a field with a malformed date says so at once, before any Apply.
      await typeInto(page, '#since', '2026-11-01')
      await typeInto(page, '#until', '2026-13-01')
      await page.keyboard.press('Tab')
      assert.equal(await page.locator('#until-error').textContent(), `"2026-13-01" is not a date: write it as YYYY-MM-DD, e.g. ${LAST_DAY}.`)
      assert.equal(await page.locator('#since-error').textContent(), '', 'the valid field has no message')
      assert.equal(await page.locator('#since').getAttribute('aria-invalid'), null, 'the valid field is not marked invalid')

      assert.deepEqual(asked.slice(before), [], 'no request while a date was refused')
    })

    it('keeps the fields and their messages inside the filters and the export form at 390 px', async () => {
      await page.setViewportSize({ width: 390, height: 900 })
      try {
        // Crossing the breakpoint folds the filters (a media query's change event): unfold them again.
        await page.locator('details.filters:not([open])').waitFor()
        await page.locator('details.filters > summary').click()
        await page.locator('details.filters[open]').waitFor()
        await page.getByLabel('Period', { exact: true }).selectOption('custom')
        await typeInto(page, '#since', '28/10/2026')
        await typeInto(page, '#until', '2026-12-31')
        await page.getByRole('button', { name: 'Apply filters' }).click()
        await page.locator('#until-error[role="alert"]').waitFor()
        assert.equal(await page.locator('#since-error').textContent(), `"28/10/2026" is not a date: write it as YYYY-MM-DD, e.g. ${LAST_DAY}.`)
        assert.equal(await sidewaysScroll(page), 0, 'the page does not scroll sideways with the refusals shown')
        assert.deepEqual(await outsideTheirBox(page), [], 'the filters with both refusals at 390 px')
        await screenshot(page, `dates/${dialect}`, 'date-refused')

        await page.getByRole('link', { name: 'Exports' }).click()
        await page.locator('#export-since').waitFor()
        // The view's own list of exports (GET /exports) answered first: only a request after this is the form's.
        await waitForLoads(page)
        await typeInto(page, '#export-since', '2026-11-31')
        await typeInto(page, '#export-until', '2026-11-25')
        const exportsBefore = asked.length
        await page.getByRole('button', { name: 'Create export' }).click()
        await page.locator('#export-until-error[role="alert"]').waitFor()
        assert.equal(await page.locator('#export-since-error').textContent(), `"2026-11-31" is not a date: write it as YYYY-MM-DD, e.g. ${LAST_DAY}.`)
        assert.equal(await page.locator('#export-until-error').textContent(), `The data goes through ${LAST_DAY}: choose a day on or before it.`)
        assert.equal(await page.evaluate(() => document.activeElement?.id), 'export-since', 'the first refused field has the focus')
        assert.deepEqual(asked.slice(exportsBefore), [], 'no export asked for')
        assert.equal(await sidewaysScroll(page), 0, 'the Exports view does not scroll sideways with the refusals shown')
        assert.deepEqual(await outsideTheirBox(page), [], 'the export form with both refusals at 390 px')
        await assertAccessible(page, 'the export form with its dates refused')
        await screenshot(page, `dates/${dialect}`, 'export-date-refused')
        await backToOverview(page)
      } finally {
        await page.setViewportSize({ width: 1440, height: 900 })
      }
    })

    it('applies a valid ISO date typed under en-US: the address, the period line, the tables and the ISO axes follow', async () => {
      await page.getByLabel('Period', { exact: true }).selectOption('custom')
      // Arrow keys move a date by a day, never past the last day with data.
      await typeInto(page, '#until', LAST_DAY)
      await page.keyboard.press('ArrowUp')
      assert.equal(await page.locator('#until').inputValue(), LAST_DAY, 'not past the last day with data')
      await page.keyboard.press('ArrowDown')
      assert.equal(await page.locator('#until').inputValue(), '2026-11-23')
      await typeInto(page, '#since', '2026-11-01')
      await typeInto(page, '#until', '2026-11-10')
      const before = asked.length
      const answered = page.waitForResponse((response) => response.url().includes('since=2026-11-01') && response.url().includes('until=2026-11-10') && response.status() === 200)
      await page.getByRole('button', { name: 'Apply filters' }).click()
      await answered
      await waitForLoads(page)
      assert.ok(asked.length > before, 'the valid period was asked for')
      const url = new URL(page.url())
      assert.equal(url.searchParams.get('since'), '2026-11-01')
      assert.equal(url.searchParams.get('until'), '2026-11-10')
      assert.equal(await page.locator('[data-period] strong').textContent(), '2026-11-01 – 2026-11-10')
      assert.equal(await drawnText(page, '#since'), '2026-11-01')
      assert.equal(await drawnText(page, '#until'), '2026-11-10')
      assert.equal(await page.locator('.date-field-error:not(:empty)').count(), 0, 'no message left')

      const days = Array.from({ length: 10 }, (_, index) => `2026-11-${String(10 - index).padStart(2, '0')}`)
      for (const metric of CHARTS) {
        const chart = page.locator(`[data-chart="${metric}"]`)
        if (await chart.locator('details').getAttribute('open') === null) await chart.locator('details > summary').click()
        const rows = chart.locator(`[data-series-table="${metric}"] tbody th`)
        await rows.first().waitFor()
        assert.deepEqual(await rows.allTextContents(), days, `${metric}: the data table lists the ten days, latest first`)
        const ticks = await drawnXTicks(page, metric)
        assert.ok(ticks.length >= 2, `${metric}: dates on the axis (${ticks.join(', ')})`)
        for (const tick of ticks) {
          assert.match(tick, /^\d{4}-\d{2}-\d{2}$/, `${metric}: an ISO date on the axis`)
          assert.ok(tick >= '2026-11-01' && tick <= '2026-11-10', `${metric}: ${tick} inside the period`)
        }
      }
      await screenshot(page, `dates/${dialect}`, 'date-applied')

      // Monthly: ISO months on the axis, under the same locale.
      await page.getByLabel('Period', { exact: true }).selectOption('12m')
      await page.getByRole('radio', { name: 'Monthly' }).check()
      await page.getByRole('button', { name: 'Apply filters' }).click()
      await page.waitForURL(/granularity=monthly/)
      await waitForLoads(page)
      const months = await drawnXTicks(page, 'views')
      assert.ok(months.length >= 3, `months on the axis (${months.join(', ')})`)
      for (const tick of months) assert.match(tick, /^(2025-12|2026-\d{2})$/, 'an ISO month of the period on the axis')
      assert.deepEqual(browser.faults, [])
    })
  })
}
