import type { AccountStatus } from '../../../packages/client/src/types.js'
import { lastDayOfMonth } from '../../../src/domain/dates.js'
import type { MetricKind } from './catalog.js'
import { daysInPeriod, type Period } from './period.js'

/**
 * The state of the data behind the figures (GET /data-status, and /analytics/?include=status):
 * how fresh each brand's data is, which points of a chart have fewer accounts reporting than
 * expected, and which accounts those are. A missing day is never drawn as zero: the point is
 * marked and the accounts behind it named.
 */

/** The members include=status appends to an entry. */
export const STATUS_FIELDS = ['accounts_expected', 'accounts_reported', 'metrics_reported', 'metrics_expected', 'account_days_expected', 'account_days_reported', 'gaps'] as const

export interface EntryStatus {
  expected: number
  reported: number
  /** Per metric: [reported, expected] among the reporting accounts (account-days for monthly). */
  metrics: Record<string, [number, number]>
  /** gaps=carry: per metric, the accounts whose stock was carried from an earlier day, and those missing. */
  gaps?: Record<string, MetricGaps>
}

export interface MetricGaps {
  carried: number
  missing: Array<{ platform: string, account_id: number, days: number }>
}

/** An entry without its status members (what the export writes), and its status when it had one. */
export function splitStatus (entry: Record<string, unknown>): { entry: Record<string, unknown>, status: EntryStatus | undefined } {
  if (typeof entry.accounts_expected !== 'number') return { entry, status: undefined }
  const plain: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(entry)) if (!(STATUS_FIELDS as readonly string[]).includes(key)) plain[key] = value
  const reported = (entry.metrics_reported ?? {}) as Record<string, number>
  const expected = (entry.metrics_expected ?? {}) as Record<string, number>
  return {
    entry: plain,
    status: {
      expected: entry.accounts_expected,
      reported: Number(entry.accounts_reported),
      metrics: Object.fromEntries(Object.keys(expected).map((metric) => [metric, [reported[metric] ?? 0, expected[metric] ?? 0]])),
      ...(typeof entry.gaps === 'object' && entry.gaps !== null ? { gaps: entry.gaps as Record<string, MetricGaps> } : {}),
    },
  }
}

/** The inputs a chart's metric depends on (a rate: its numerator and both possible denominators). */
const INPUTS: Record<string, string[]> = { engagement_rate: ['interactions', 'views', 'reach'], interaction_rate: ['interactions', 'views', 'reach'] }

/**
 * Why a point is incomplete for a metric, in words; undefined when it is complete. `period`: an
 * agg entry, whose accounts_reported/expected count account-days (a monthly entry's count accounts).
 */
export function shortfall (status: EntryStatus | undefined, metric: string, unit: 'day' | 'month' | 'period'): string | undefined {
  if (status === undefined) return undefined
  const parts: string[] = []
  if (status.reported < status.expected) parts.push(`${status.reported} of ${status.expected} ${unit === 'period' ? 'account-days' : 'accounts'} reported`)
  const counted = unit === 'day' ? 'accounts' : 'account-days'
  for (const input of INPUTS[metric] ?? [metric]) {
    const [reported, expected] = status.metrics[input] ?? [0, 0]
    if (reported < expected) parts.push(`${input} reported by ${reported} of ${expected} ${counted}`)
  }
  return parts.length === 0 ? undefined : parts.join('; ')
}

/**
 * gaps=carry: how many accounts' values of a stock were carried from an earlier day at this point
 * (0 without gaps=carry, or for a flow or rate, which are never carried).
 */
export function carriedAccounts (status: EntryStatus | undefined, metric: string): number {
  return status?.gaps?.[metric]?.carried ?? 0
}

/** "1 account carried from its last report": how the charts and the Platforms view say a stock was carried. */
export function carriedText (accounts: number): string {
  return `${accounts} ${accounts === 1 ? 'account' : 'accounts'} carried from ${accounts === 1 ? 'its' : 'their'} last report`
}

/** A figure's mark: what kind, and why in words ("no data" is the page's to say before it). */
export interface ValueMark {
  kind: 'carried' | 'partial' | 'no-data'
  text: string
}

/**
 * How a figure of an agg entry (a period's total, include=status and gaps=carry) is to be read:
 * - `carried`: a stock some of whose accounts did not report the period's last day, their value
 *   carried from their last report (shown, marked);
 * - `no-data`: a flow or rate of an entry none of whose account-days reported (a carried-only
 *   entry: the API's 0 is nothing reported, not a real zero, so it is not shown as a number);
 * - `partial`: a flow or rate that fewer account-days reported than expected (shown, marked);
 * undefined when the figure stands on every account-day expected (or the entry has no status).
 * A stock is not partial for days missed inside the period: only its last day counts.
 */
export function periodMark (status: EntryStatus | undefined, metric: string, kind: MetricKind): ValueMark | undefined {
  if (status === undefined) return undefined
  if (kind === 'stock') {
    const carried = carriedAccounts(status, metric)
    return carried > 0 ? { kind: 'carried', text: carriedText(carried) } : undefined
  }
  if (status.expected > 0 && status.reported === 0) return { kind: 'no-data', text: `0 of ${status.expected} account-days reported` }
  const why = shortfall(status, metric, 'period')
  return why === undefined ? undefined : { kind: 'partial', text: why }
}

/** The group of an entry, as the accounts it sums: a brand's (on a platform), one account, or a platform's. */
export interface EntryGroup {
  brandId?: number
  accountId?: number
  platform?: string
}

export function groupOfEntry (entry: Record<string, unknown>): EntryGroup {
  return {
    ...(typeof entry.brand_id === 'number' ? { brandId: entry.brand_id } : {}),
    ...(typeof entry.account_id === 'number' ? { accountId: entry.account_id } : {}),
    ...(typeof entry.platform === 'string' ? { platform: entry.platform } : {}),
  }
}

export function inGroup (account: AccountStatus, group: EntryGroup): boolean {
  return (group.brandId === undefined || account.brand_id === group.brandId) &&
    (group.accountId === undefined || account.account_id === group.accountId) &&
    (group.platform === undefined || account.platform === group.platform)
}

/** The window of a day or of a month (`YYYY-MM`) inside the period. */
export function windowOf (x: string, period: Period): Period {
  if (x.length === 10) return { since: x, until: x }
  const first = `${x}-01`
  const last = lastDayOfMonth(x)
  return { since: first > period.since ? first : period.since, until: last < period.until ? last : period.until }
}

/**
 * The accounts of a group expected in a window (their coverage meets it) that have no row at all
 * in it: for a day, those missing that day; for a month, those missing every covered day of it.
 */
export function missingAccounts (accounts: readonly AccountStatus[], group: EntryGroup, window: Period): AccountStatus[] {
  return accounts.filter((account) => {
    if (!inGroup(account, group) || account.first_date === null || account.last_date === null) return false
    const since = account.first_date > window.since ? account.first_date : window.since
    const until = account.last_date < window.until ? account.last_date : window.until
    if (since > until) return false
    const covered = daysInPeriod({ since, until })
    const missed = account.missing.reduce((days, range) => {
      const from = range.since > since ? range.since : since
      const to = range.until < until ? range.until : until
      return from <= to ? days + daysInPeriod({ since: from, until: to }) : days
    }, 0)
    return missed === covered
  })
}

/**
 * The account-days of a group in a window (a month inside the period): expected, the days inside
 * each account's coverage; reported, those of them with a row; and each account that missed some,
 * with how many. A month in which an account missed 8 days is not complete, though the account
 * reported in it (the monthly entry's accounts_reported counts it).
 */
export function accountDays (accounts: readonly AccountStatus[], group: EntryGroup, window: Period): { expected: number, reported: number, short: Array<{ account: AccountStatus, days: number }> } {
  let expected = 0
  let reported = 0
  const short: Array<{ account: AccountStatus, days: number }> = []
  for (const account of accounts) {
    if (!inGroup(account, group) || account.first_date === null || account.last_date === null) continue
    const since = account.first_date > window.since ? account.first_date : window.since
    const until = account.last_date < window.until ? account.last_date : window.until
    if (since > until) continue
    const covered = daysInPeriod({ since, until })
    const missed = account.missing.reduce((days, range) => {
      const from = range.since > since ? range.since : since
      const to = range.until < until ? range.until : until
      return from <= to ? days + daysInPeriod({ since: from, until: to }) : days
    }, 0)
    expected += covered
    reported += covered - missed
    if (missed > 0) short.push({ account, days: missed })
  }
  return { expected, reported, short }
}

export interface BrandFreshness {
  brandId: number
  /** The earliest last day with data among its accounts that have data: every account has data through it. */
  dataThrough: string | null
  /** The latest last day among them, when it differs. */
  latest: string | null
  /** When an import last changed any of its accounts' data. */
  syncedAt: string | null
  /** Accounts with days missing in the period, and how many. */
  gaps: Array<{ account: AccountStatus, days: number }>
}

/** Per brand, in the order given: how far its data goes, when it was synced, what the period misses. */
export function freshnessOf (accounts: readonly AccountStatus[], brandIds: readonly number[]): BrandFreshness[] {
  return brandIds.map((brandId) => {
    const own = accounts.filter((account) => account.brand_id === brandId)
    const ends = own.map((account) => account.last_date).filter((date): date is string => date !== null).sort()
    const synced = own.map((account) => account.synced_at).filter((time): time is string => time !== null).sort()
    const dataThrough = ends[0] ?? null
    const latest = ends.at(-1) ?? null
    return {
      brandId,
      dataThrough,
      latest: latest === dataThrough ? null : latest,
      syncedAt: synced.at(-1) ?? null,
      gaps: own.filter((account) => account.days_reported < account.days_expected).map((account) => ({ account, days: account.days_expected - account.days_reported })),
    }
  })
}

/** "just now", "5 minutes ago", "3 hours ago", "2 days ago" (UTC timestamps; a clock ahead of the server reads as just now). */
export function formatAgo (timestamp: string, now: number): string {
  const seconds = Math.max(0, Math.floor((now - Date.parse(timestamp)) / 1000))
  const plural = (count: number, unit: string) => `${count} ${unit}${count === 1 ? '' : 's'} ago`
  if (seconds < 60) return 'just now'
  if (seconds < 3600) return plural(Math.floor(seconds / 60), 'minute')
  if (seconds < 86_400) return plural(Math.floor(seconds / 3600), 'hour')
  return plural(Math.floor(seconds / 86_400), 'day')
}

/** Ranges as text: "2026-11-04", "2026-11-04 – 2026-11-06"; past `max`, how many more. */
export function formatRanges (ranges: ReadonlyArray<{ since: string, until: string }>, max = 5): string {
  const shown = ranges.slice(0, max).map((range) => range.since === range.until ? range.since : `${range.since} – ${range.until}`).join(', ')
  return ranges.length > max ? `${shown} and ${ranges.length - max} more` : shown
}
