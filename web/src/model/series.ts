import { datesOf, monthsOf, type Period } from './period.js'
import { PLATFORMS, platformName } from './platforms.js'
import { groupOfEntry, type EntryGroup, type EntryStatus } from './status.js'

/**
 * Daily or monthly entries turned into chart lines: one line per brand, account or platform (the
 * entry's grouping), one point per date of the period. A date the API returned no entry for
 * (docs/api-reference.md "GET /analytics/": groups without data rows produce no entry) is null, drawn as a gap, never 0.
 */

export const CHART_METRICS = ['views', 'interactions', 'followers', 'engagement_rate'] as const
export type ChartMetric = (typeof CHART_METRICS)[number]

export type Entry = Record<string, unknown>

export interface Line {
  key: string
  label: string
  values: Record<ChartMetric, Array<number | null>>
  /** The accounts the line sums (to name the missing ones). */
  group: EntryGroup
  /** include=status: each point's completeness, when the API gave it. */
  status: Array<EntryStatus | undefined>
}

export interface SeriesModel {
  /** Dates (YYYY-MM-DD) or months (YYYY-MM), oldest first. */
  x: string[]
  lines: Line[]
}

/** The entry's group: its account, brand and/or platform, with a readable label. */
export function groupOf (entry: Entry, brandNames: ReadonlyMap<number, string>): { key: string, label: string, order: [number, number] } {
  const platform = typeof entry.platform === 'string' ? entry.platform : undefined
  const platformRank = platform === undefined ? -1 : PLATFORMS.indexOf(platform as never)
  const suffix = platform === undefined ? '' : ` · ${platformName(platform)}`
  if (typeof entry.account_id === 'number') {
    const name = typeof entry.account_name === 'string' ? entry.account_name : `Account ${entry.account_id}`
    return { key: `a${entry.account_id}|${platform ?? ''}`, label: `${name}${suffix}`, order: [entry.account_id, platformRank] }
  }
  if (typeof entry.brand_id === 'number') {
    const name = brandNames.get(entry.brand_id) ?? `Brand ${entry.brand_id}`
    return { key: `b${entry.brand_id}|${platform ?? ''}`, label: `${name}${suffix}`, order: [entry.brand_id, platformRank] }
  }
  return { key: `p|${platform ?? ''}`, label: platform === undefined ? 'All' : platformName(platform), order: [0, platformRank] }
}

const metricValue = (entry: Entry, metric: ChartMetric): number | null => {
  const value = entry[metric]
  return typeof value === 'number' && Number.isFinite(value) ? value : null
}

/** `statuses`: include=status, one per entry (undefined where the API gave none). */
export function buildSeries (entries: readonly Entry[], granularity: 'daily' | 'monthly', period: Period, brandNames: ReadonlyMap<number, string>, statuses: ReadonlyArray<EntryStatus | undefined> = []): SeriesModel {
  const x = granularity === 'daily' ? datesOf(period) : monthsOf(period)
  const position = new Map(x.map((value, index) => [value, index]))
  const lines = new Map<string, Line & { order: [number, number] }>()
  for (const [index, entry] of entries.entries()) {
    const at = position.get(String(granularity === 'daily' ? entry.date : entry.month))
    if (at === undefined) continue
    const group = groupOf(entry, brandNames)
    let line = lines.get(group.key)
    if (line === undefined) {
      const empty = () => x.map((): number | null => null)
      line = { key: group.key, label: group.label, order: group.order, values: { views: empty(), interactions: empty(), followers: empty(), engagement_rate: empty() }, group: groupOfEntry(entry), status: x.map(() => undefined) }
      lines.set(group.key, line)
    }
    const status = statuses[index]
    // A carried-only entry (gaps=carry: no account of the line reported; its followers carried): its
    // flows and rate are no data, a gap, never a fall to 0; the carried followers stay on the line.
    const nothingReported = status !== undefined && status.expected > 0 && status.reported === 0
    for (const metric of Object.keys(line.values) as ChartMetric[]) line.values[metric][at] = nothingReported && metric !== 'followers' ? null : metricValue(entry, metric)
    line.status[at] = status
  }
  const sorted = [...lines.values()].sort((a, b) => a.order[0] - b.order[0] || a.order[1] - b.order[1])
  return { x, lines: sorted.map(({ key, label, values, group, status }) => ({ key, label, values, group, status })) }
}
