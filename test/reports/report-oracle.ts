import { APPLIES, ORDER } from '../analytics/oracle.js'
import type { AnalyticsDataset } from '../helpers/analytics-fixtures.js'

/**
 * An independent, deliberately plain model of POST /reports (docs/reports.md) over the fixture's
 * raw account-day rows: loops over every row for every group, BigInt for every rounding, its own
 * calendar arithmetic; nothing shared with src/. Tests compare the endpoint's whole answer with it.
 */

export interface OracleReport {
  metrics: string[]
  dimensions?: string[]
  since: string
  until: string
  filters?: { brand_id?: number[], account_id?: number[], platform?: string[] }
  order_by?: Array<{ metric?: string, dimension?: string, desc?: boolean }>
  comparison?: 'previous_period' | 'previous_year' | { since: string, until: string }
  include?: string[]
}

export type OracleReportAnswer = { status: 200, body: Record<string, unknown> & { rows: Array<Record<string, unknown>> } } | { status: 400 | 403 | 404 }

const BY_REACH = ['fb', 'ig', 'sc', 'li']
const TIME = ['date', 'week', 'month', 'quarter', 'year']
const DECIMALS: Record<string, number> = { revenue: 2, posts_per_day: 2, engagement_rate: 6, interaction_rate: 6 }

type Row = Record<string, number | string | null> & { platform: string, account_id: number, date: string }
interface Acc { platform: string, account_id: number, brand_id: number, account_name: string, brand_name: string, first: string | null, last: string | null }

const DAY = 86_400_000
const ms = (date: string): number => Date.parse(`${date}T00:00:00Z`)
const iso = (time: number): string => new Date(time).toISOString().slice(0, 10)
const plus = (date: string, days: number): string => iso(ms(date) + days * DAY)
const span = (from: string, to: string): number => (ms(to) - ms(from)) / DAY + 1

/** Half-up n / d to `places` decimals, as the number JSON would parse; 0 when d is 0. */
function divide (n: bigint, d: bigint, places: number): number {
  if (d === 0n) return 0
  const negative = (n < 0n) !== (d < 0n)
  const a = n < 0n ? -n : n
  const b = d < 0n ? -d : d
  const scale = 10n ** BigInt(places)
  const q = (a * scale * 2n + b) / (2n * b)
  const text = q.toString().padStart(places + 1, '0')
  const value = Number(places === 0 ? text : `${text.slice(0, text.length - places)}.${text.slice(text.length - places)}`)
  return negative && value !== 0 ? -value : value
}

/** The bucket of a date: [first day, label]. */
function bucketOf (dimension: string, date: string): [string, string] {
  const d = new Date(ms(date))
  const y = d.getUTCFullYear()
  const m = d.getUTCMonth()
  if (dimension === 'date') return [date, date]
  if (dimension === 'month') return [iso(Date.UTC(y, m, 1)), date.slice(0, 7)]
  if (dimension === 'quarter') return [iso(Date.UTC(y, m - (m % 3), 1)), `${y}-Q${Math.floor(m / 3) + 1}`]
  if (dimension === 'year') return [iso(Date.UTC(y, 0, 1)), String(y)]
  const monday = plus(date, -((d.getUTCDay() + 6) % 7))
  const thursday = new Date(ms(monday) + 3 * DAY)
  const isoYear = thursday.getUTCFullYear()
  const dayOfYear = (thursday.getTime() - Date.UTC(isoYear, 0, 1)) / DAY
  return [monday, `${isoYear}-W${String(Math.floor(dayOfYear / 7) + 1).padStart(2, '0')}`]
}

/** Buckets of a period in order: first day, label, days inside the period. */
function bucketsOf (dimension: string | undefined, since: string, until: string): Array<{ start: string, label: string, days: number }> {
  if (dimension === undefined) return [{ start: '', label: '', days: span(since, until) }]
  const list: Array<{ start: string, label: string, days: number }> = []
  for (let date = since; date <= until; date = plus(date, 1)) {
    const [start, label] = bucketOf(dimension, date)
    const last = list[list.length - 1]
    if (last !== undefined && last.start === start) last.days++
    else list.push({ start, label, days: 1 })
  }
  return list
}

function yearEarlier (date: string): string {
  const y = String(Number(date.slice(0, 4)) - 1).padStart(4, '0')
  return date.slice(5) === '02-29' ? `${y}-02-28` : `${y}${date.slice(4)}`
}

/** A metric's value over some account-days (rows) of some accounts, the bucket having `days` days. */
function metricOf (metric: string, rows: Row[], days: number, platform: string | undefined): number | null {
  if (platform !== undefined && APPLIES[metric] !== undefined && !(APPLIES[metric] as string[]).includes(platform)) return null
  const sum = (column: string): bigint => rows.reduce((total, row) => total + BigInt(row[column] === null || row[column] === undefined ? 0 : Number(row[column])), 0n)
  switch (metric) {
    case 'revenue': {
      const micros = sum('revenue_micros')
      return Number((micros + 5000n) / 10000n) / 100
    }
    case 'followers': {
      const last = new Map<string, Row>()
      for (const row of rows) {
        if (row.followers === null) continue
        const key = `${row.platform}/${row.account_id}`
        const kept = last.get(key)
        if (kept === undefined || kept.date < row.date) last.set(key, row)
      }
      return [...last.values()].reduce((total, row) => total + Number(row.followers), 0)
    }
    case 'posts_per_day': return divide(sum('posts_count'), BigInt(days), 2)
    case 'engagement_rate':
    case 'interaction_rate': {
      const denominator = rows.reduce((total, row) => total + BigInt(Number((BY_REACH.includes(row.platform) ? row.reach : row.views) ?? 0)), 0n)
      return divide(sum('interactions'), denominator, 6)
    }
    default: return Number(sum(metric))
  }
}

export function reportOracle (dataset: AnalyticsDataset, accessible: number[], q: OracleReport): OracleReportAnswer {
  const filters = q.filters ?? {}
  const platforms = filters.platform === undefined ? undefined : ORDER.filter((code) => filters.platform?.includes(code))
  if (filters.account_id !== undefined && platforms?.length !== 1) return { status: 400 }
  if ((filters.brand_id ?? []).some((id) => !accessible.includes(id))) return { status: 403 }
  const names = new Map(dataset.brands.map((brand) => [Number(brand.brand_id), brand.brand_name]))
  const all: Acc[] = dataset.accounts.map((a) => {
    const dates = dataset.daily.filter((row) => row.platform === a.platform && Number(row.account_id) === Number(a.account_id)).map((row) => row.date).sort()
    return { platform: a.platform, account_id: Number(a.account_id), brand_id: Number(a.brand_id), account_name: a.account_name, brand_name: names.get(Number(a.brand_id)) as string, first: dates[0] ?? null, last: dates[dates.length - 1] ?? null }
  })
  let scoped: Acc[]
  const brands = filters.brand_id ?? accessible
  if (filters.account_id !== undefined) {
    scoped = all.filter((a) => a.platform === platforms?.[0] && filters.account_id?.includes(a.account_id) && brands.includes(a.brand_id))
    if (scoped.length !== new Set(filters.account_id).size) return { status: 404 }
  } else {
    scoped = all.filter((a) => brands.includes(a.brand_id) && (platforms === undefined || platforms.includes(a.platform)))
  }

  const dims = q.dimensions ?? []
  const time = dims.find((d) => TIME.includes(d))
  const withPlatform = dims.includes('platform') || dims.includes('account')
  const keyOf = (a: Acc): string => dims.filter((d) => !TIME.includes(d)).map((d) => d === 'platform' ? a.platform : d === 'brand' ? String(a.brand_id) : `${a.platform}/${a.account_id}`).join('|')

  interface Group { position: number, label: string, account: Acc, rows: Row[], days: number, start: string }
  /** Groups of one period, keyed position|scope key, with every account of the scope that shares the key. */
  function groupsOf (since: string, until: string) {
    const buckets = bucketsOf(time, since, until)
    const groups = new Map<string, Group>()
    for (const a of scoped) {
      for (const raw of dataset.daily) {
        const row = { ...raw, account_id: Number(raw.account_id) } as unknown as Row
        if (row.platform !== a.platform || row.account_id !== a.account_id || row.date < since || row.date > until) continue
        const start = time === undefined ? '' : bucketOf(time, row.date)[0]
        const position = buckets.findIndex((b) => b.start === start)
        const bucket = buckets[position] as { label: string, days: number }
        const key = `${position}|${keyOf(a)}`
        if (!groups.has(key)) groups.set(key, { position, label: bucket.label, account: a, rows: [], days: bucket.days, start })
        groups.get(key)?.rows.push(row)
      }
    }
    /** Account-days expected per group: each account of the key's coverage days inside the bucket, counted day by day. */
    const counted = new Map<string, number>()
    for (const a of scoped) {
      if (a.first === null || a.last === null) continue
      for (let date = since; date <= until; date = plus(date, 1)) {
        if (date < a.first || date > a.last) continue
        const start = time === undefined ? '' : bucketOf(time, date)[0]
        const key = `${buckets.findIndex((b) => b.start === start)}|${keyOf(a)}`
        counted.set(key, (counted.get(key) ?? 0) + 1)
      }
    }
    const expected = (position: number, scopeKey: string): number => counted.get(`${position}|${scopeKey}`) ?? 0
    return { buckets, groups, expected }
  }

  const here = groupsOf(q.since, q.until)
  let there: ReturnType<typeof groupsOf> | undefined
  let other: { since: string, until: string } | undefined
  if (q.comparison !== undefined) {
    if (q.comparison === 'previous_year') other = { since: yearEarlier(q.since), until: yearEarlier(q.until) }
    else if (q.comparison === 'previous_period') {
      const days = span(q.since, q.until)
      other = { since: plus(q.since, -days), until: plus(q.since, -1) }
    } else other = q.comparison
    there = groupsOf(other.since, other.until)
  }

  const include = q.include ?? []
  const rows: Array<{ json: Record<string, unknown>, group: Group }> = []
  for (const [key, group] of here.groups) {
    const a = group.account
    const platform = withPlatform ? a.platform : undefined
    const json: Record<string, unknown> = {}
    for (const d of dims) if (TIME.includes(d)) json[d] = group.label
    if (withPlatform) json.platform = a.platform
    if (dims.includes('brand')) {
      json.brand_id = a.brand_id
      json.brand_name = a.brand_name
    }
    if (dims.includes('account')) {
      json.account_id = a.account_id
      json.account_name = a.account_name
    }
    json.metrics = Object.fromEntries(q.metrics.map((m) => [m, metricOf(m, group.rows, group.days, platform)]))
    if (include.includes('status')) {
      json.accounts_expected = here.expected(group.position, keyOf(a))
      json.accounts_reported = group.rows.length
    }
    if (there !== undefined) {
      const bucket = there.buckets[group.position]
      if (bucket === undefined) json.comparison = null
      else {
        const match = there.groups.get(key)
        const values = Object.fromEntries(q.metrics.map((m) => [m, metricOf(m, match?.rows ?? [], bucket.days, platform)]))
        const wanted = there.expected(group.position, keyOf(a))
        const complete = wanted > 0 && (match?.rows.length ?? 0) === wanted
        const change: Record<string, number | null> = {}
        const relative: Record<string, number | null> = {}
        for (const m of q.metrics) {
          const now = (json.metrics as Record<string, number | null>)[m] ?? null
          const then = values[m] ?? null
          if (!complete || now === null || then === null) {
            change[m] = null
            relative[m] = null
            continue
          }
          const scale = 10 ** (DECIMALS[m] ?? 0)
          const a1 = BigInt(Math.round(now * scale))
          const b1 = BigInt(Math.round(then * scale))
          change[m] = Number(a1 - b1) / scale
          relative[m] = b1 === 0n ? null : divide(a1 - b1, b1, 6)
        }
        json.comparison = { ...(time === undefined ? {} : { [time]: bucket.label }), complete, metrics: values, change, relative_change: relative }
      }
    }
    rows.push({ json, group })
  }

  const dimensionOrder = (d: string, x: Group, y: Group): number => {
    if (TIME.includes(d)) return x.position - y.position
    if (d === 'brand') return x.account.brand_id - y.account.brand_id
    const p = ORDER.indexOf(x.account.platform) - ORDER.indexOf(y.account.platform)
    if (d === 'platform' || p !== 0) return p
    return x.account.account_id - y.account.account_id
  }
  rows.sort((x, y) => {
    for (const item of q.order_by ?? []) {
      let c: number
      if (item.metric !== undefined) {
        const u = (x.json.metrics as Record<string, number | null>)[item.metric] ?? null
        const v = (y.json.metrics as Record<string, number | null>)[item.metric] ?? null
        c = u === v ? 0 : u === null ? -1 : v === null ? 1 : u - v
      } else c = dimensionOrder(item.dimension as string, x.group, y.group)
      if (c !== 0) return item.desc === true ? -c : c
    }
    for (const d of dims) {
      const c = dimensionOrder(d, x.group, y.group)
      if (c !== 0) return c
    }
    return 0
  })

  const rowsOf = (since: string, until: string): Row[] => dataset.daily
    .map((raw) => ({ ...raw, account_id: Number(raw.account_id) }) as unknown as Row)
    .filter((row) => row.date >= since && row.date <= until && scoped.some((a) => a.platform === row.platform && a.account_id === row.account_id))
  const body: Record<string, unknown> & { rows: Array<Record<string, unknown>> } = {
    rows: rows.map((row) => row.json),
    total: rows.length,
    total_rows: rows.length,
    since: q.since,
    until: q.until,
    dimensions: dims,
    metrics: q.metrics,
    platforms: platforms ?? 'all',
    brand_ids: filters.account_id !== undefined && filters.brand_id === undefined
      ? [...new Set(scoped.map((a) => a.brand_id))].sort((x, y) => x - y)
      : [...brands].sort((x, y) => x - y),
  }
  if (include.includes('totals')) body.totals = Object.fromEntries(q.metrics.map((m) => [m, metricOf(m, rowsOf(q.since, q.until), span(q.since, q.until), undefined)]))
  if (other !== undefined) {
    body.comparison = { since: other.since, until: other.until }
    if (include.includes('totals')) (body.comparison as Record<string, unknown>).totals = Object.fromEntries(q.metrics.map((m) => [m, metricOf(m, rowsOf(other.since, other.until), span(other.since, other.until), undefined)]))
  }
  return { status: 200, body }
}
