import type { AnalyticsDataset } from '../helpers/analytics-fixtures.js'
import { APPLIES, ORDER, type OracleQuery } from './oracle.js'

/**
 * An independent, deliberately plain model of what include=status adds to an entry and of
 * GET /data-status (docs/api-reference.md "Completeness", "Data status"), computed from the
 * fixture rows with loops over days: no SQL, no code shared with src/. Coverage is each account's
 * first and last day with a row over the whole dataset.
 */

const CORE = ['revenue', 'views', 'followers', 'new_followers', 'posts_count', 'interactions']

interface Account { platform: string, account_id: number, brand_id: number, account_name: string }
type Row = Record<string, unknown> & { platform: string, account_id: number, date: string }

export interface Coverage { first: string, last: string }

const DAY = 86_400_000
const addDays = (date: string, days: number): string => new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY).toISOString().slice(0, 10)
const daysInclusive = (from: string, to: string): number => (Date.parse(to) - Date.parse(from)) / DAY + 1
const lastDayOfMonth = (month: string): string => {
  const [y, m] = month.split('-').map(Number) as [number, number]
  return new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10)
}

export class StatusOracle {
  private readonly accounts: Account[]
  private readonly rows = new Map<string, Row>()
  private readonly coverage = new Map<string, Coverage>()

  constructor (dataset: AnalyticsDataset, private readonly accessible: number[]) {
    this.accounts = dataset.accounts.map((a) => ({ platform: a.platform, account_id: Number(a.account_id), brand_id: Number(a.brand_id), account_name: a.account_name }))
    for (const raw of dataset.daily) {
      const row = { ...raw, account_id: Number(raw.account_id) } as Row
      this.rows.set(`${row.platform}:${row.account_id}:${row.date}`, row)
      const key = `${row.platform}:${row.account_id}`
      const seen = this.coverage.get(key)
      if (seen === undefined) this.coverage.set(key, { first: row.date, last: row.date })
      else this.coverage.set(key, { first: row.date < seen.first ? row.date : seen.first, last: row.date > seen.last ? row.date : seen.last })
    }
  }

  /** The accounts of a valid scope (the main oracle checks the 400/403/404 cases). */
  scoped (q: Pick<OracleQuery, 'brandIds' | 'accountIds' | 'platforms'>): Account[] {
    if (q.accountIds !== undefined) {
      const allowed = q.brandIds ?? this.accessible
      return this.accounts.filter((a) => a.platform === q.platforms?.[0] && q.accountIds?.includes(a.account_id) && allowed.includes(a.brand_id))
    }
    const brands = q.brandIds ?? this.accessible
    return this.accounts.filter((a) => brands.includes(a.brand_id) && (q.platforms === undefined || q.platforms.includes(a.platform)))
  }

  private hasRow (account: Account, date: string): Row | undefined {
    return this.rows.get(`${account.platform}:${account.account_id}:${date}`)
  }

  /** The status members of one entry of the answer to `q` (the entry as the API returned it). */
  entryStatus (q: OracleQuery, entry: Record<string, unknown>): Record<string, unknown> {
    const byPlatform = q.split || q.platforms !== undefined
    const group = this.scoped(q).filter((a) =>
      (!byPlatform || a.platform === entry.platform) &&
      (q.split || (q.accountIds !== undefined ? a.account_id === entry.account_id : a.brand_id === entry.brand_id)))
    let from = q.since
    let to = q.until
    if (q.type === 'daily') from = to = String(entry.date)
    if (q.type === 'monthly') {
      const month = String(entry.month)
      from = `${month}-01` > q.since ? `${month}-01` : q.since
      to = lastDayOfMonth(month) < q.until ? lastDayOfMonth(month) : q.until
    }
    const metrics = [...CORE, ...Object.keys(APPLIES).filter((metric) => metric in entry)]
    let accountsExpected = 0
    let accountsReported = 0
    let accountDaysExpected = 0
    let accountDaysReported = 0
    const reported: Record<string, number> = Object.fromEntries(metrics.map((metric) => [metric, 0]))
    const expected: Record<string, number> = Object.fromEntries(metrics.map((metric) => [metric, 0]))
    for (const account of group) {
      const coverage = this.coverage.get(`${account.platform}:${account.account_id}`)
      if (coverage === undefined || coverage.last < from || coverage.first > to) continue
      accountsExpected++
      let days = 0
      for (let date = from; date <= to; date = addDays(date, 1)) {
        if (date >= coverage.first && date <= coverage.last) accountDaysExpected++
        const row = this.hasRow(account, date)
        if (row === undefined) continue
        days++
        for (const metric of metrics) {
          const applies = APPLIES[metric] === undefined || (APPLIES[metric] ?? []).includes(account.platform)
          if (applies) expected[metric] = (expected[metric] ?? 0) + 1
          if (row[metric === 'revenue' ? 'revenue_micros' : metric] !== null) reported[metric] = (reported[metric] ?? 0) + 1
        }
      }
      accountDaysReported += days
      if (days > 0) accountsReported++
      if (q.type === 'agg') accountsReported += days - 1
    }
    return {
      accounts_expected: q.type === 'agg' ? accountDaysExpected : accountsExpected,
      accounts_reported: accountsReported,
      metrics_reported: reported,
      metrics_expected: expected,
      ...(q.type === 'monthly' ? { account_days_expected: accountDaysExpected, account_days_reported: accountDaysReported } : {}),
    }
  }

  /** include=status's envelope members: the scope's last day with a row, and the period's days after it. */
  through (q: OracleQuery): { data_through: string | null, not_synced: { since: string, until: string } | null } {
    const lasts = this.scoped(q).map((a) => this.coverage.get(`${a.platform}:${a.account_id}`)?.last).filter((last): last is string => last !== undefined)
    const last = lasts.length === 0 ? null : lasts.reduce((a, b) => a > b ? a : b)
    if (last !== null && last >= q.until) return { data_through: last, not_synced: null }
    return { data_through: last, not_synced: { since: last === null || last < q.since ? q.since : addDays(last, 1), until: q.until } }
  }

  /** GET /data-status's entries for a valid scope and period, in the documented order. */
  dataStatus (q: Pick<OracleQuery, 'brandIds' | 'accountIds' | 'platforms' | 'since' | 'until'>): Array<Record<string, unknown>> {
    const accounts = [...this.scoped(q)].sort((a, b) => a.brand_id - b.brand_id || ORDER.indexOf(a.platform) - ORDER.indexOf(b.platform) || a.account_id - b.account_id)
    return accounts.map((account) => {
      const coverage = this.coverage.get(`${account.platform}:${account.account_id}`)
      const from = coverage === undefined ? undefined : coverage.first > q.since ? coverage.first : q.since
      const to = coverage === undefined ? undefined : coverage.last < q.until ? coverage.last : q.until
      const missing: Array<{ since: string, until: string }> = []
      let expected = 0
      let reported = 0
      if (from !== undefined && to !== undefined && from <= to) {
        expected = daysInclusive(from, to)
        for (let date = from; date <= to; date = addDays(date, 1)) {
          if (this.hasRow(account, date) !== undefined) { reported++; continue }
          const open = missing.at(-1)
          if (open !== undefined && addDays(open.until, 1) === date) open.until = date
          else missing.push({ since: date, until: date })
        }
      }
      return {
        brand_id: account.brand_id,
        platform: account.platform,
        account_id: account.account_id,
        account_name: account.account_name,
        first_date: coverage?.first ?? null,
        last_date: coverage?.last ?? null,
        days_expected: expected,
        days_reported: reported,
        missing,
      }
    })
  }
}
