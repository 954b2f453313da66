import type { MetricKind } from './catalog.js'

/**
 * How a chart draws each point, so that missing data never looks like a real change:
 *
 * - a **complete** point is on the line;
 * - a **partial** point (some accounts, or the metric of some accounts, missing) is cut out of the
 *   line and drawn on its own as a hollow point: a flow summed over fewer accounts is not a fall
 *   (a month short of less than 10 % of its account-days stays on the line, marked: `drawnApart`);
 * - a **carried** point (a stock whose missing accounts were carried from their last reported
 *   day, `gaps=carry`) stays on the line, its segments dashed.
 *
 * The y axis starts at 0 (a 2 % dip looks like 2 %), and a rate's axis is scaled on its complete
 * points only: one partial day (a numerator without its denominator) cannot stretch it. Marks of
 * incomplete points are clustered by horizontal position, so a long chart is not buried under them.
 */

export type PointState = 'complete' | 'partial' | 'carried'

/** A month with at least this share of its account-days (and of its metric's) reported stays on the line, marked. */
export const MONTH_ON_LINE_SHARE = 0.9

/**
 * Whether an incomplete point is cut out of the line. A day: always (one account of three missing
 * is a third of the sum). A month: when an account sent nothing in it, or less than 90 % of its
 * account-days (or of the metric's) reported; a month short of a day or two stays on the line,
 * marked, and its data table says by how much.
 */
export function drawnApart (unit: 'day' | 'month', shares: { accountsMissing: boolean, accountDays?: number, metric?: number }): boolean {
  if (unit === 'day' || shares.accountsMissing) return true
  return (shares.accountDays ?? 1) < MONTH_ON_LINE_SHARE || (shares.metric ?? 1) < MONTH_ON_LINE_SHARE
}

/** Each point's state for a line, from its values and its warnings. */
export interface PointStates {
  /** The values drawn as the line: partial points cut out (null). */
  line: Array<number | null>
  /** Per point: complete, partial or carried (a null value is complete: a gap). */
  states: PointState[]
}

export function pointStates (values: ReadonlyArray<number | null>, partial: ReadonlyArray<boolean | undefined>, carried: ReadonlyArray<boolean | undefined> = []): PointStates {
  const states = values.map((value, at): PointState => value === null ? 'complete' : partial[at] === true ? 'partial' : carried[at] === true ? 'carried' : 'complete')
  return { line: values.map((value, at) => states[at] === 'partial' ? null : value), states }
}

/**
 * The y range of a chart: from 0 (or below, for negative values) to a little above the highest
 * value that counts. For a rate only complete and carried points count, unless there are none;
 * partial points above the top are drawn at the edge, pointing up (`clipped`).
 */
export function axisRange (kind: MetricKind, lines: ReadonlyArray<{ values: ReadonlyArray<number | null>, states: readonly PointState[] }>): { min: number, max: number, clipped: boolean } {
  const all: number[] = []
  const counted: number[] = []
  for (const line of lines) {
    line.values.forEach((value, at) => {
      if (value === null || !Number.isFinite(value)) return
      all.push(value)
      if (line.states[at] !== 'partial') counted.push(value)
    })
  }
  const basis = kind === 'rate' && counted.length > 0 ? counted : all
  const top = basis.length === 0 ? 0 : Math.max(...basis)
  const bottom = Math.min(0, ...basis)
  const max = top <= 0 ? (bottom < 0 ? 0 : 1) : top * 1.08
  return { min: bottom < 0 ? bottom * 1.08 : 0, max, clipped: all.some((value) => value > max) }
}

export interface Mark {
  /** Horizontal position (CSS pixels). */
  x: number
  /** Accounts missing (a triangle); else only a metric of some account (a ring). */
  accountsMissing: boolean
}

export interface MarkCluster {
  /** The cluster's centre: the mean position of its marks. */
  x: number
  count: number
  accountsMissing: boolean
}

/**
 * Marks grouped into clusters at least `spacing` pixels apart: a run of marks closer than that
 * becomes one mark with its count. Input in any order; output left to right.
 */
export function clusterMarks (marks: readonly Mark[], spacing: number): MarkCluster[] {
  const sorted = [...marks].sort((a, b) => a.x - b.x)
  const clusters: Array<MarkCluster & { first: number, sum: number }> = []
  for (const mark of sorted) {
    const last = clusters.at(-1)
    if (last !== undefined && mark.x - last.first < spacing) {
      last.count += 1
      last.sum += mark.x
      last.x = last.sum / last.count
      last.accountsMissing ||= mark.accountsMissing
    } else {
      clusters.push({ x: mark.x, count: 1, accountsMissing: mark.accountsMissing, first: mark.x, sum: mark.x })
    }
  }
  return clusters.map(({ x, count, accountsMissing }) => ({ x, count, accountsMissing }))
}

/**
 * How a point is drawn, from its warning (undefined: complete) and the accounts whose stock was
 * carried there. gaps=carry: a stock whose missing accounts were carried from their last report
 * stays on the line, dashed; a rate computed by the gap rules (over the account-days reporting
 * both its parts) stays on the line, marked. Otherwise a point `apart` is cut out of the line.
 */
export function stateOf (kind: MetricKind, warning: { apart?: boolean, carryRules?: boolean } | undefined, carried: number): PointState {
  if (kind === 'stock' && carried > 0) return 'carried'
  if (warning?.apart !== true) return 'complete'
  return kind === 'rate' && warning.carryRules === true ? 'complete' : 'partial'
}
