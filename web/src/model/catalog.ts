import type { MetricCatalog } from '../../../packages/client/src/types.js'

/**
 * Metric labels and help text as GET /catalog/metrics gives them (the API's one catalogue, read
 * once at sign-in), so that the page says what the API means by each figure. A name the
 * catalogue does not know is shown as it is.
 */

/**
 * What a metric is, as the catalogue's `kind` says: a **flow** is summed over days (views), a
 * **stock** is each account's last value over days (followers), a **rate** is a ratio of sums
 * (engagement rate). The charts draw each kind by its own rules (model/points.ts).
 */
export type MetricKind = 'flow' | 'stock' | 'rate'

export interface MetricText {
  label: string
  description: string
  kind: MetricKind
  /** The catalogue's unit: `count`, `ratio`, or `currency` (the account's currency; the API names no code). */
  unit: string
}

export type MetricTexts = ReadonlyMap<string, MetricText>

export function metricTextsOf (catalog: MetricCatalog): MetricTexts {
  return new Map(catalog.data.map((metric) => [metric.name, { label: metric.label, description: metric.description, kind: metric.kind ?? kindOf(metric.combine), unit: metric.unit }]))
}

/** A catalogue without `kind` (an older server): read from how the metric combines. */
function kindOf (combine: { over_days?: string, over_accounts?: string } | undefined): MetricKind {
  return combine?.over_accounts === 'ratio' ? 'rate' : combine?.over_days === 'last' ? 'stock' : 'flow'
}

/** A metric's kind as the catalogue says; a name it does not know is a flow (summed). */
export function metricKind (texts: MetricTexts, name: string): MetricKind {
  return texts.get(name)?.kind ?? 'flow'
}

export function metricLabel (texts: MetricTexts, name: string): string {
  return texts.get(name)?.label ?? name
}

export function metricDescription (texts: MetricTexts, name: string): string {
  return texts.get(name)?.description ?? ''
}

/**
 * What the catalogue's unit says, for a heading: money is in the account's currency (the
 * catalogue's `currency`: the API stores no currency code, so the page cannot name one, and says
 * whose it is instead); counts and ratios need no word.
 */
export function unitText (texts: MetricTexts, name: string): string | undefined {
  return texts.get(name)?.unit === 'currency' ? "account's currency" : undefined
}

/** A column heading: the label, with the currency for money ("Revenue (account's currency)"). */
export function metricHeading (texts: MetricTexts, name: string): string {
  const unit = unitText(texts, name)
  return unit === undefined ? metricLabel(texts, name) : `${metricLabel(texts, name)} (${unit})`
}
