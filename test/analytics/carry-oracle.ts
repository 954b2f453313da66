import type { AnalyticsDataset } from '../helpers/analytics-fixtures.js'
import { APPLIES, type OracleQuery } from './oracle.js'

/**
 * An independent, deliberately plain model of what gaps=carry changes in an entry (docs/analytics.md
 * "Missing data"), from the fixture rows with loops over days: no SQL, no code shared with src/.
 * followers: per account of the entry's group, walk back from the last day of the window inside
 * the account's coverage to its first row, and take the first followers found. Rates: only the
 * account-days with both parts. posts_per_day: per account, posts over the days that reported
 * posts_count, summed as exact fractions over a common denominator.
 */

const REACH = ['fb', 'ig', 'sc', 'li']
const REPORTED = ['revenue', 'views', 'followers', 'new_followers', 'posts_count', 'interactions', ...Object.keys(APPLIES)]

interface Account { platform: string, account_id: number, brand_id: number }
type Row = Record<string, unknown>

const DAY = 86_400_000
const addDays = (date: string, days: number): string => new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY).toISOString().slice(0, 10)
const lastDayOfMonth = (month: string): string => {
  const [y, m] = month.split('-').map(Number) as [number, number]
  return new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10)
}
const gcd = (a: bigint, b: bigint): bigint => b === 0n ? a : gcd(b, a % b)
/** n / d half-up to `places`, 0 when d is 0. */
const halfUp = (n: bigint, d: bigint, places: number): number => {
  if (d === 0n) return 0
  const scale = 10n ** BigInt(places)
  const scaled = (n * scale * 2n + d) / (d * 2n)
  return Number(scaled) / Number(scale)
}

export class CarryOracle {
  private readonly accounts: Account[]
  private readonly rows = new Map<string, Row>()
  private readonly coverage = new Map<string, { first: string, last: string }>()

  constructor (dataset: AnalyticsDataset, private readonly accessible: number[]) {
    this.accounts = dataset.accounts.map((a) => ({ platform: a.platform, account_id: Number(a.account_id), brand_id: Number(a.brand_id) }))
    for (const row of dataset.daily) {
      const key = `${row.platform}:${Number(row.account_id)}`
      this.rows.set(`${key}:${row.date}`, row as unknown as Row)
      const seen = this.coverage.get(key)
      this.coverage.set(key, seen === undefined
        ? { first: row.date, last: row.date }
        : { first: row.date < seen.first ? row.date : seen.first, last: row.date > seen.last ? row.date : seen.last })
    }
  }

  private group (q: OracleQuery, entry: Record<string, unknown>): Account[] {
    const byPlatform = q.split || q.platforms !== undefined
    const brands = q.brandIds ?? this.accessible
    return this.accounts.filter((a) =>
      (q.accountIds !== undefined
        ? a.platform === q.platforms?.[0] && q.accountIds.includes(a.account_id) && brands.includes(a.brand_id)
        : brands.includes(a.brand_id) && (q.platforms === undefined || q.platforms.includes(a.platform))) &&
      (!byPlatform || a.platform === entry.platform) &&
      (q.split || (q.accountIds !== undefined ? a.account_id === entry.account_id : a.brand_id === entry.brand_id)))
  }

  private window (q: OracleQuery, entry: Record<string, unknown>): [string, string] {
    if (q.type === 'daily') return [String(entry.date), String(entry.date)]
    if (q.type === 'agg') return [q.since, q.until]
    const month = String(entry.month)
    return [`${month}-01` > q.since ? `${month}-01` : q.since, lastDayOfMonth(month) < q.until ? lastDayOfMonth(month) : q.until]
  }

  private row (account: Account, date: string): Row | undefined {
    return this.rows.get(`${account.platform}:${account.account_id}:${date}`)
  }

  private value (row: Row | undefined, metric: string): number | null {
    if (row === undefined) return null
    const value = row[metric === 'revenue' ? 'revenue_micros' : metric]
    return value === null || value === undefined ? null : Number(value)
  }

  /**
   * The entries gaps=carry adds, in the report's order (newest first, then group id, then
   * platform): per window (each day, each month inside the period, the period) and group, when
   * an account of the group has the window's days inside its coverage and no account of the group
   * has a row in the window. Each as its key fields: date or month, and brand_id, account_id or
   * platform as the query groups.
   */
  carriedOnly (q: OracleQuery): Array<Record<string, unknown>> {
    const order = ['fb', 'ig', 'tk', 'yt', 'li', 'th', 'sc', 'da', 'pi']
    const byPlatform = q.split || q.platforms !== undefined
    const brands = q.brandIds ?? this.accessible
    const inScope = this.accounts.filter((a) => q.accountIds !== undefined
      ? a.platform === q.platforms?.[0] && q.accountIds.includes(a.account_id) && brands.includes(a.brand_id)
      : brands.includes(a.brand_id) && (q.platforms === undefined || q.platforms.includes(a.platform)))
    const windows: Array<[string, string, Record<string, unknown>]> = []
    if (q.type === 'agg') windows.push([q.since, q.until, {}])
    else if (q.type === 'daily') for (let day = q.until; day >= q.since; day = addDays(day, -1)) windows.push([day, day, { date: day }])
    else {
      for (let month = q.until.slice(0, 7); month >= q.since.slice(0, 7); month = addDays(`${month}-01`, -1).slice(0, 7)) {
        windows.push([`${month}-01` > q.since ? `${month}-01` : q.since, lastDayOfMonth(month) < q.until ? lastDayOfMonth(month) : q.until, { month }])
      }
    }
    const groupOf = (a: Account): Record<string, unknown> => ({
      ...(q.split ? {} : q.accountIds !== undefined ? { account_id: a.account_id } : { brand_id: a.brand_id }),
      ...(byPlatform ? { platform: a.platform } : {}),
    })
    const found: Array<Record<string, unknown>> = []
    for (const [from, to, bucket] of windows) {
      const groups = new Map<string, { key: Record<string, unknown>, covered: boolean, rows: boolean }>()
      for (const account of inScope) {
        const key = { ...bucket, ...groupOf(account) }
        const id = JSON.stringify(key)
        const group = groups.get(id) ?? { key, covered: false, rows: false }
        groups.set(id, group)
        const coverage = this.coverage.get(`${account.platform}:${account.account_id}`)
        if (coverage !== undefined && coverage.first <= to && coverage.last >= from) group.covered = true
        for (let day = from; day <= to; day = addDays(day, 1)) if (this.row(account, day) !== undefined) group.rows = true
      }
      const added = [...groups.values()].filter((group) => group.covered && !group.rows).map((group) => group.key)
      added.sort((a, b) => Number(a.brand_id ?? a.account_id ?? 0) - Number(b.brand_id ?? b.account_id ?? 0) || order.indexOf(String(a.platform)) - order.indexOf(String(b.platform)))
      found.push(...added)
    }
    return found
  }

  /** The fields gaps=carry computes for this entry, and with status its `gaps` member. */
  expected (q: OracleQuery, entry: Record<string, unknown>, withStatus: boolean): Record<string, unknown> {
    const [from, to] = this.window(q, entry)
    let followers = 0
    let interactions = 0n
    let denominator = 0n
    // posts_per_day as a fraction over the product of the accounts' day counts, reduced at the end.
    let postsN = 0n
    let postsD = 1n
    let carried = 0
    const metrics = withStatus ? Object.keys(entry.metrics_reported as Record<string, number>) : []
    const missing: Record<string, Array<{ platform: string, account_id: number, days: number }>> = Object.fromEntries(metrics.map((metric) => [metric, []]))
    const order = ['fb', 'ig', 'tk', 'yt', 'li', 'th', 'sc', 'da', 'pi']
    const group = this.group(q, entry).sort((a, b) => order.indexOf(a.platform) - order.indexOf(b.platform) || a.account_id - b.account_id)
    for (const account of group) {
      const coverage = this.coverage.get(`${account.platform}:${account.account_id}`)
      if (coverage === undefined) continue
      const start = from > coverage.first ? from : coverage.first
      const end = to < coverage.last ? to : coverage.last
      if (start > end) continue
      // followers: walk back from the span's last day, never past the first row, never forward.
      for (let day = end; day >= coverage.first; day = addDays(day, -1)) {
        const value = this.value(this.row(account, day), 'followers')
        if (value === null) continue
        followers += value
        if (day !== end) carried++
        break
      }
      let posts = 0n
      let postDays = 0n
      const missed: Record<string, number> = {}
      for (let day = start; day <= end; day = addDays(day, 1)) {
        const row = this.row(account, day)
        const i = this.value(row, 'interactions')
        const d = this.value(row, REACH.includes(account.platform) ? 'reach' : 'views')
        if (i !== null && d !== null) { interactions += BigInt(i); denominator += BigInt(d) }
        const p = this.value(row, 'posts_count')
        if (p !== null) { posts += BigInt(p); postDays++ }
        for (const metric of metrics) {
          const applies = APPLIES[metric] === undefined || (APPLIES[metric] ?? []).includes(account.platform)
          if (applies && REPORTED.includes(metric) && this.value(row, metric) === null) missed[metric] = (missed[metric] ?? 0) + 1
        }
      }
      if (postDays > 0n) {
        postsN = postsN * postDays + posts * postsD
        postsD = postsD * postDays
      }
      for (const [metric, days] of Object.entries(missed)) missing[metric]?.push({ platform: account.platform, account_id: account.account_id, days })
    }
    const divisor = gcd(postsN, postsD)
    const rate = halfUp(interactions, denominator, 6)
    const fields: Record<string, unknown> = {
      followers,
      posts_per_day: halfUp(postsN / divisor, postsD / divisor, 2),
      engagement_rate: rate,
      interaction_rate: rate,
    }
    if (withStatus) {
      fields.gaps = Object.fromEntries(metrics.map((metric) => [metric, { carried: metric === 'followers' ? carried : 0, missing: missing[metric] }]))
    }
    return fields
  }
}
