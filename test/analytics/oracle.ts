import type { AnalyticsDataset } from '../helpers/analytics-fixtures.js'

/**
 * An independent, deliberately plain model of GET /analytics/ (docs/analytics.md) over the fixture
 * rows: loops and Math.round, no SQL, no code shared with src/analytics. Tests compare the
 * endpoint with it field by field.
 */

export interface OracleQuery {
  type: 'daily' | 'monthly' | 'agg'
  since: string
  until: string
  brandIds?: number[]
  accountIds?: number[]
  /** Canonical codes, already resolved from whatever aliases the request used. */
  platforms?: string[]
  split: boolean
}

export type OracleAnswer = { status: 200, body: Record<string, unknown> & { data: Array<Record<string, unknown>> } } | { status: 400 | 403 | 404 }

export const ORDER = ['fb', 'ig', 'tk', 'yt', 'li', 'th', 'sc', 'da', 'pi']
/** The platform-specific field table of docs/api-reference.md, copied by hand (both oracles read it). */
export const APPLIES: Record<string, string[]> = {
  video_views_3s: ['fb'],
  video_views_2s: ['pi'],
  views_video: ['ig', 'tk', 'yt', 'sc', 'li', 'th', 'da'],
  reach: ['fb', 'ig', 'sc', 'li'],
  impressions: ['fb', 'li', 'da', 'pi'],
  ad_reach: ['fb', 'ig'],
  likes: ['fb', 'ig', 'tk', 'yt', 'li', 'th', 'da', 'pi'],
  shares: ['fb', 'ig', 'tk', 'yt', 'sc', 'li', 'th'],
  comments: ['fb', 'ig', 'tk', 'yt', 'li', 'th', 'pi'],
  views_organic: ['fb', 'ig'],
  views_paid: ['fb', 'ig'],
  link_clicks: ['fb', 'li'],
}
const REACH_DENOMINATOR = ['fb', 'ig', 'sc', 'li']
const FLOWS = ['views', 'new_followers', 'posts_count', 'interactions']

type Row = Record<string, unknown> & { platform: string, account_id: number, date: string }

function daysInclusive (from: string, to: string): number {
  return (Date.parse(to) - Date.parse(from)) / 86_400_000 + 1
}

function lastDayOfMonth (month: string): string {
  const [y, m] = month.split('-').map(Number) as [number, number]
  const d = new Date(Date.UTC(y, m, 0))
  return d.toISOString().slice(0, 10)
}

export function oracle (dataset: AnalyticsDataset, accessible: number[], q: OracleQuery): OracleAnswer {
  if (q.accountIds !== undefined && q.platforms?.length !== 1) return { status: 400 }
  if ((q.brandIds ?? []).some((id) => !accessible.includes(id))) return { status: 403 }
  const accounts = dataset.accounts.map((a) => ({ ...a, account_id: Number(a.account_id), brand_id: Number(a.brand_id) }))
  let scoped: typeof accounts
  if (q.accountIds !== undefined) {
    const allowed = q.brandIds ?? accessible
    scoped = accounts.filter((a) => a.platform === q.platforms?.[0] && q.accountIds?.includes(a.account_id) && allowed.includes(a.brand_id))
    if (scoped.length !== q.accountIds.length) return { status: 404 }
  } else {
    const brands = q.brandIds ?? accessible
    scoped = accounts.filter((a) => brands.includes(a.brand_id) && (q.platforms === undefined || q.platforms.includes(a.platform)))
  }

  const byAccount = q.accountIds !== undefined
  const byPlatform = q.split || q.platforms !== undefined
  const groups = new Map<string, { bucket: string, id: number, platform: string, rows: Row[] }>()
  for (const raw of dataset.daily) {
    const row = { ...raw, account_id: Number(raw.account_id) } as Row
    const account = scoped.find((a) => a.platform === row.platform && a.account_id === row.account_id)
    if (account === undefined || row.date < q.since || row.date > q.until) continue
    const bucket = q.type === 'daily' ? row.date : q.type === 'monthly' ? row.date.slice(0, 7) : ''
    const id = q.split ? 0 : byAccount ? account.account_id : account.brand_id
    const platform = byPlatform ? row.platform : ''
    const key = `${bucket}|${id}|${platform}`
    if (!groups.has(key)) groups.set(key, { bucket, id, platform, rows: [] })
    groups.get(key)?.rows.push(row)
  }

  const sorted = [...groups.values()].sort((a, b) =>
    (a.bucket === b.bucket ? 0 : a.bucket > b.bucket ? -1 : 1) || a.id - b.id || ORDER.indexOf(a.platform) - ORDER.indexOf(b.platform))

  const data = sorted.map((group) => {
    const entry: Record<string, unknown> = {}
    if (q.type === 'daily') entry.date = group.bucket
    if (q.type === 'monthly') entry.month = group.bucket
    if (byPlatform) entry.platform = group.platform
    if (!q.split && !byAccount) {
      entry.brand_id = group.id
      if (q.type === 'agg') entry.name = dataset.brands.find((b) => Number(b.brand_id) === group.id)?.brand_name
    }
    if (!q.split && byAccount) {
      const account = scoped.find((a) => a.account_id === group.id)
      if (q.type === 'agg') {
        Object.assign(entry, { account_id: group.id, name: account?.account_name, network_id: account?.network_id ?? null, storage_avatar: account?.storage_avatar ?? null, permalink: account?.permalink ?? null })
      } else {
        Object.assign(entry, { account_id: group.id, account_name: account?.account_name })
      }
    }
    const sum = (field: string): number => group.rows.reduce((total, row) => total + (typeof row[field] === 'number' ? row[field] : 0), 0)
    const revenueRows = group.rows.filter((row) => typeof row.revenue_micros === 'number')
    const revenueMicros = sum('revenue_micros')
    entry.revenue = revenueRows.length === 0 ? (q.type === 'agg' ? null : 0) : Math.floor(revenueMicros / 10_000 + 0.5) / 100

    let followers = 0
    if (q.type === 'daily') {
      followers = sum('followers')
    } else {
      const latest = new Map<string, Row>()
      for (const row of group.rows) {
        if (typeof row.followers !== 'number') continue
        const key = `${row.platform}:${row.account_id}`
        const seen = latest.get(key)
        if (seen === undefined || seen.date < row.date) latest.set(key, row)
      }
      for (const row of latest.values()) followers += row.followers as number
    }
    for (const flow of FLOWS) entry[flow] = sum(flow)
    entry.followers = followers
    let days = 1
    if (q.type === 'agg') days = daysInclusive(q.since, q.until)
    if (q.type === 'monthly') {
      const first = `${group.bucket}-01` > q.since ? `${group.bucket}-01` : q.since
      const last = lastDayOfMonth(group.bucket) < q.until ? lastDayOfMonth(group.bucket) : q.until
      days = daysInclusive(first, last)
    }
    entry.posts_per_day = q.type === 'daily' ? entry.posts_count : Math.round((entry.posts_count as number) * 100 / days) / 100
    const denominator = group.rows.reduce((total, row) => {
      const value = REACH_DENOMINATOR.includes(row.platform) ? row.reach : row.views
      return total + (typeof value === 'number' ? value : 0)
    }, 0)
    const rate = denominator === 0 ? 0 : Math.round((entry.interactions as number) * 1e6 / denominator) / 1e6
    entry.engagement_rate = rate
    entry.interaction_rate = rate
    for (const [field, platforms] of Object.entries(APPLIES)) {
      if (field === 'ad_reach' && q.type !== 'daily') continue
      if (byPlatform && !platforms.includes(group.platform)) continue
      entry[field] = sum(field)
    }
    return entry
  })

  const brandIds = q.brandIds ?? (byAccount ? [...new Set(scoped.map((a) => a.brand_id))].sort((a, b) => a - b) : [...accessible].sort((a, b) => a - b))
  const body: Record<string, unknown> & { data: Array<Record<string, unknown>> } = {
    data,
    total: data.length,
    since: q.since,
    until: q.until,
    platforms: q.platforms ?? 'all',
    brand_ids: brandIds,
  }
  if (q.brandIds?.length === 1) body.brand_id = q.brandIds[0]
  if (q.type === 'agg') body.aggregates = aggregatesOf(data)
  return { status: 200, body }
}

function aggregatesOf (data: Array<Record<string, unknown>>) {
  const n = data.length
  const total: Record<string, number | null> = {}
  for (const field of ['views', 'interactions', 'posts_count', 'new_followers', 'followers']) {
    total[field] = data.reduce((sum, entry) => sum + (entry[field] as number), 0)
  }
  const revenues = data.filter((entry) => entry.revenue !== null)
  const revenueCents = revenues.reduce((sum, entry) => sum + Math.round((entry.revenue as number) * 100), 0)
  total.revenue = revenues.length === 0 ? null : revenueCents / 100
  const ppdCents = data.reduce((sum, entry) => sum + Math.round((entry.posts_per_day as number) * 100), 0)
  total.posts_per_day = ppdCents / 100
  const average: Record<string, number | null> = {}
  for (const field of ['views', 'interactions', 'posts_count', 'new_followers', 'followers']) {
    average[field] = n === 0 ? 0 : Math.round((total[field] as number) * 100 / n) / 100
  }
  average.revenue = total.revenue === null ? null : Math.round(revenueCents / n) / 100
  average.posts_per_day = n === 0 ? 0 : Math.round(ppdCents / n) / 100
  return { total, average }
}
