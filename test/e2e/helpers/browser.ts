import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium, type BrowserContext, type Locator, type Page } from 'playwright-core'
import type { TestPartner } from '../../helpers/partners.js'

/**
 * Debian's Chromium driven by playwright-core (no browser download, ever): headless, no sandbox
 * (CI runs as root), nothing that phones home, a fresh profile per launch. Plus what the tests do
 * with a page: sign in, wait for the loads to finish, run axe-core, take screenshots.
 */

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const ARTIFACTS = fileURLToPath(new URL('../../../test-artifacts/dashboard/', import.meta.url))
const DOCS_IMAGES = fileURLToPath(new URL('../../../docs/images/', import.meta.url))
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

/** Generous: the machine is shared with other builds and test files. */
export const UI_TIMEOUT_MS = 60_000

export interface BrowserSession {
  context: BrowserContext
  page: Page
  /** Errors the page threw and Content-Security-Policy violations it reported: both must stay empty. */
  faults: string[]
  close: () => Promise<void>
}

/** `lang`: Chromium's UI language (`--lang`), which native date inputs follow, e.g. `en-US` (mm/dd/yyyy). */
export async function launchBrowser (width = 1440, options: { lang?: string } = {}): Promise<BrowserSession> {
  const profile = mkdtempSync(join(tmpdir(), 'pa-chromium-'))
  const lang = options.lang === undefined ? [] : [`--lang=${options.lang}`]
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage', ...lang],
    viewport: { width, height: 900 },
    acceptDownloads: true,
    locale: 'en-US',
    timezoneId: 'UTC',
  })
  context.setDefaultTimeout(UI_TIMEOUT_MS)
  const page = context.pages()[0] ?? await context.newPage()
  const faults: string[] = []
  page.on('pageerror', (error) => faults.push(`page error: ${error.message}`))
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) faults.push(`CSP: ${message.text()}`)
  })
  return {
    context,
    page,
    faults,
    close: async () => {
      await context.close()
      rmSync(profile, { recursive: true, force: true })
    },
  }
}

export async function signIn (page: Page, partner: Pick<TestPartner, 'clientKey' | 'secretKey'>): Promise<void> {
  await page.getByLabel('API client key').fill(partner.clientKey)
  await page.getByLabel('API secret key').fill(partner.secretKey)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('button', { name: 'Sign out' }).waitFor()
}

/**
 * Waits until no load is under way on the page (every loading state replaced by data, empty or a
 * problem) and what is drawn after the loads is drawn. Besides a view's "Loading…" (`.state-loading`):
 * - a chart not drawn yet: line-chart.tsx builds uPlot in an effect, a frame after the render that
 *   ended the loads, and marks the drawn chart with `data-plot` (legend, canvas and `data-x-ticks`
 *   come with the same draw);
 * - a second load a panel shows inline, once its main one is done: the Platforms bars' previous
 *   period ("…" in `[data-previous]`), the previous period's coverage of the Summary cards and of
 *   the Top accounts' change cells ("Checking the previous period…").
 * The page's own data-status load of the Table view (its missing-days list) has no loading state at
 * all: a test reading that list waits for it.
 */
export async function waitForLoads (page: Page): Promise<void> {
  await page.waitForFunction(() => {
    if (document.querySelector('.panel') === null) return false
    if (document.querySelector('.state-loading, .chart:not([data-plot])') !== null) return false
    if ([...document.querySelectorAll('[data-bars] [data-previous]')].some((cell) => cell.textContent === '…')) return false
    return ![...document.querySelectorAll('.card-change, [data-field="change"]')].some((cell) => (cell.textContent ?? '').startsWith('Checking the previous period'))
  }, null, { timeout: UI_TIMEOUT_MS * 2 })
}

/**
 * A chart's x-axis labels as drawn (`data-x-ticks`, the canvas has no text to read). Written by the
 * chart's draw, a frame after the render that ended its loads: waited for, never read before (a
 * chart re-rendered for new data is a new element, so what is waited for is the new chart's).
 */
export async function drawnXTicks (page: Page, metric: string): Promise<string[]> {
  const chart = page.locator(`[data-chart="${metric}"] .chart[data-x-ticks]`)
  await chart.waitFor()
  return JSON.parse(await chart.getAttribute('data-x-ticks') ?? '[]') as string[]
}

/** axe-core over the whole page: no violation of any rule it runs by default (WCAG 2.x A/AA and best practices). */
export async function assertAccessible (page: Page, label: string): Promise<void> {
  // Injected through DevTools, which the page's CSP does not govern (an inline <script> would be refused).
  if (!await page.evaluate(() => 'axe' in window)) await page.evaluate(AXE_SOURCE)
  const violations = await page.evaluate(async () => {
    const result = await (window as unknown as { axe: { run: (context: Document) => Promise<{ violations: Array<{ id: string, impact: string, help: string, nodes: Array<{ target: unknown[] }> }> }> } }).axe.run(document)
    return result.violations.map((violation) => `${violation.id} (${violation.impact}): ${violation.help} at ${violation.nodes.slice(0, 3).map((node) => JSON.stringify(node.target)).join(', ')}`)
  })
  assert.deepEqual(violations, [], `axe-core violations on ${label}`)
}

/** A full-page screenshot under test-artifacts/dashboard/<folder>/<name>-<width>.png (gitignored). */
export async function screenshot (page: Page, folder: string, name: string): Promise<string> {
  const directory = join(ARTIFACTS, folder)
  mkdirSync(directory, { recursive: true })
  const width = page.viewportSize()?.width ?? 0
  const path = join(directory, `${name}-${width}.png`)
  await page.screenshot({ path, fullPage: true })
  return path
}

/**
 * The images of docs/dashboard.md are taken by the browser tests themselves, so they can be taken
 * again from the current dashboard: with DOCS_IMAGES=1 (and only on SQLite, the demo data being the
 * same on both stores) this writes docs/images/dashboard-<name>-<width>.png, the whole page or one
 * element. Otherwise it does nothing, so a plain test run never touches the docs.
 * Compress after: `pngquant --force --skip-if-larger --ext .png docs/images/<file>`.
 */
export async function docsImage (target: Page | Locator, dialect: string, name: string): Promise<string | undefined> {
  if (process.env.DOCS_IMAGES !== '1' || dialect !== 'sqlite') return undefined
  const page = 'page' in target ? target.page() : target
  const path = join(DOCS_IMAGES, `dashboard-${name}-${page.viewportSize()?.width ?? 0}.png`)
  if ('page' in target) await target.screenshot({ path })
  else await target.screenshot({ path, fullPage: true })
  return path
}

/** A number as shown on screen ("1,234", "3.4512 %", "12.50") → its value; "—" → null. */
export function shownNumber (text: string): number | null {
  const trimmed = text.replace(/\(.*\)$/, '').trim()
  if (trimmed.startsWith('—')) return null
  const value = Number(trimmed.replace(/[,\s%]/g, ''))
  assert.ok(Number.isFinite(value), `not a number on screen: "${text}"`)
  return trimmed.endsWith('%') ? value / 100 : value
}

/** The same ratio? (a 6-decimal ratio shown as a 4-decimal percentage) */
export function sameRatio (shown: number | null, api: unknown): boolean {
  return shown !== null && typeof api === 'number' && Math.round(shown * 1e6) === Math.round(api * 1e6)
}
