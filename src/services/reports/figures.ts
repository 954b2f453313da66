import { rateValue, type GroupFigures } from '../../domain/gaps/index.js'
import { metricDefinition, type MetricDefinition } from '../../domain/metric-catalog.js'
import { ENGAGEMENT_DENOMINATOR } from '../../domain/metrics.js'
import type { PlatformCode } from '../../domain/platforms.js'
import { centsToAmount, microsToCents, roundedRatio } from '../../domain/rounding.js'

/**
 * The figures of one report row (or of the totals) from exact integer sums, each metric by its kind
 * in the catalogue (src/domain/metric-catalog.ts): a flow adds the account-days; a stock takes each
 * account's last reported value in the bucket, summed over the accounts; a rate divides its summed
 * parts (`ratioOf`), never averaging rounded values. Money is
 * summed in micro-units, rounded half-up to cents; ratios half-up to the catalogue's decimals.
 */

/** Sums of one group: per stored column (null until an account-day reported it), plus the derived denominators. */
export class Sums {
  readonly columns = new Map<string, number>()
  /** Σ over accounts of the last followers reported in the bucket. */
  lastFollowers: number | null = null
  /** Σ of reach on reach platforms and of views on the others (the engagement denominator). */
  reachOrViews = 0
  daysReported = 0

  /** Adds one account-bucket's sums. */
  add (platform: PlatformCode, row: Readonly<Record<string, number | null>>, lastFollowers: number | null, daysReported: number): void {
    for (const [column, value] of Object.entries(row)) {
      if (value === null) continue
      this.columns.set(column, (this.columns.get(column) ?? 0) + value)
    }
    if (lastFollowers !== null) this.lastFollowers = (this.lastFollowers ?? 0) + lastFollowers
    const denominator = row[ENGAGEMENT_DENOMINATOR[platform]]
    if (denominator !== null && denominator !== undefined) this.reachOrViews += denominator
    this.daysReported += daysReported
  }

  sumOf (column: string): number {
    return this.columns.get(column) ?? 0
  }
}

/**
 * The stored columns whose sums the figures of `metrics` read: a flow's own column, a rate's parts
 * (reach_or_views: reach and views), nothing for followers (its last value is read apart) or for
 * days. The account-buckets query sums only these.
 */
export function columnsOfMetrics (metrics: readonly string[]): string[] {
  const needed = new Set<string>()
  for (const metric of metrics) {
    const definition = definitionOf(metric)
    if (definition.kind === 'flow') needed.add(columnOf(metric))
    else if (definition.kind === 'rate' && definition.ratioOf !== undefined) {
      const { numerator, denominator } = definition.ratioOf
      needed.add(columnOf(numerator))
      if (denominator === 'reach_or_views') for (const column of Object.values(ENGAGEMENT_DENOMINATOR)) needed.add(column)
      else if (denominator !== 'days') needed.add(columnOf(denominator))
    }
  }
  return [...needed]
}

/** The stored column a reported metric lives in. */
export function columnOf (metric: string): string {
  return metric === 'revenue' ? 'revenue_micros' : metric
}

function definitionOf (metric: string): MetricDefinition {
  const definition = metricDefinition(metric)
  if (definition === undefined) throw new Error(`not a metric of the catalogue: ${metric}`)
  return definition
}

/**
 * One metric of a group. `days` are the days of the group's time bucket inside the period;
 * `platform` the group's platform when it has one (a metric its platform lacks is null).
 */
export function figureOf (metric: string, sums: Sums, days: number, platform: PlatformCode | undefined): number | null {
  const definition = definitionOf(metric)
  if (platform !== undefined && !definition.platforms.includes(platform)) return null
  if (definition.kind === 'rate') {
    const inputs = definition.ratioOf
    if (inputs === undefined) throw new Error(`ratio metric without ratioOf: ${metric}`)
    const numerator = sums.sumOf(columnOf(inputs.numerator))
    const denominator = inputs.denominator === 'days' ? days : inputs.denominator === 'reach_or_views' ? sums.reachOrViews : sums.sumOf(columnOf(inputs.denominator))
    return roundedRatio(numerator, denominator, definition.decimals)
  }
  // The one stock of the catalogue: the account-buckets query keeps the last followers reported.
  if (definition.kind === 'stock') return sums.lastFollowers ?? 0
  const total = sums.sumOf(columnOf(metric))
  return definition.unit === 'currency' ? centsToAmount(microsToCents(total)) : total
}

/**
 * One metric of a group under gaps=carry, from the gap rules' figures of its accounts
 * (src/domain/gaps combineAccounts): flows and stocks as summed there, rates from their exact parts.
 */
export function carriedFigureOf (metric: string, figures: GroupFigures, platform: PlatformCode | undefined): number | null {
  const definition = definitionOf(metric)
  if (platform !== undefined && !definition.platforms.includes(platform)) return null
  if (definition.kind === 'rate') return rateValue(figures, definition)
  const total = figures.sums[definition.sameAs ?? definition.name] ?? 0
  return definition.unit === 'currency' ? centsToAmount(microsToCents(total)) : total
}

/** Decimals of a metric on the wire. */
export function decimalsOf (metric: string): number {
  return definitionOf(metric).decimals
}

/** A signed quotient rounded half away from zero (the symmetric half-up of src/domain/rounding.ts). */
function signedRatio (numerator: number, denominator: number, decimals: number): number {
  const magnitude = roundedRatio(Math.abs(numerator), Math.abs(denominator), decimals)
  return (numerator < 0) !== (denominator < 0) && magnitude !== 0 ? -magnitude : magnitude
}

/**
 * The change from `previous` to `current` of one metric: absolute (in the metric's own decimals,
 * exact) and relative ((current − previous) / previous, 6 decimals; null when previous is 0).
 */
export function changeOf (metric: string, current: number | null, previous: number | null): { absolute: number | null, relative: number | null } {
  if (current === null || previous === null) return { absolute: null, relative: null }
  const scale = 10 ** decimalsOf(metric)
  const now = Math.round(current * scale)
  const then = Math.round(previous * scale)
  return { absolute: (now - then) / scale, relative: then === 0 ? null : signedRatio(now - then, then, 6) }
}
