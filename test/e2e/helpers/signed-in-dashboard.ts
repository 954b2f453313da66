import type { Page } from 'playwright-core'
import type { PartnerAnalyticsClient } from '../../../packages/client/src/client.js'
import type { Dialect } from '../../../src/storage/db.js'
import { apiClient } from './api.js'
import { launchBrowser, signIn, waitForLoads, type BrowserSession } from './browser.js'
import { ensureDashboardBuilt } from './dashboard-build.js'
import { startDashboardServer, type DashboardServer } from './dashboard-server.js'

/**
 * The setup most dashboard tests share: the built dashboard, a service with the demo data ending
 * on a fixed day (the same figures every day) on a fresh store of the dialect, an API client of
 * the demo partner, and Chromium at 1440 px signed in on a first address, its loads done.
 * `open` moves the same page to another address as the page's own links do (history and
 * popstate: no reload, so no second sign-in) and waits for its loads.
 */

export interface SignedInDashboard {
  server: DashboardServer
  browser: BrowserSession
  page: Page
  api: PartnerAnalyticsClient
  open: (search: string) => Promise<void>
  close: () => Promise<void>
}

export interface SignedInOptions {
  /** The demo's last day. */
  until: string
  /** The address signed in on, after `/dashboard/` (e.g. `?brands=4`); none: the default view. */
  start?: string
  /** Chromium's UI language (launchBrowser's `lang`). */
  lang?: string
}

export async function openSignedInDashboard (dialect: Dialect, options: SignedInOptions): Promise<SignedInDashboard> {
  await ensureDashboardBuilt()
  const server = await startDashboardServer(dialect, { until: options.until })
  let browser: BrowserSession | undefined
  const close = async () => {
    await browser?.close()
    await server.close()
  }
  try {
    browser = await launchBrowser(1440, options.lang === undefined ? {} : { lang: options.lang })
    const page = browser.page
    await page.goto(`${server.baseUrl}/dashboard/${options.start ?? ''}`)
    await signIn(page, server.partner)
    await waitForLoads(page)
    const open = async (search: string) => {
      await page.evaluate((url) => { window.history.pushState(null, '', url); window.dispatchEvent(new PopStateEvent('popstate')) }, `/dashboard/${search}`)
      // Two frames: the page has rendered the new address (its loads started) before waitForLoads
      // looks, which would otherwise pass on the previous view's finished panel.
      await page.evaluate(async () => { await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))) })
      await waitForLoads(page)
    }
    return { server, browser, page, api: apiClient(server.baseUrl, server.partner), open, close }
  } catch (error) {
    // Nothing started here outlives a failed setup (the test's `after` has no handle to close).
    await close()
    throw error
  }
}
