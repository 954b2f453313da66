import type { MetricCatalog } from '../../../packages/client/src/types.js'

/**
 * Metric labels and help text as GET /catalog/metrics gives them (the API's one catalogue, read
 * once at sign-in), so that the page says what the API means by each figure. A name the
 * catalogue does not know is shown as it is.
 */

export interface MetricText {
  label: string
  description: string
}

export type MetricTexts = ReadonlyMap<string, MetricText>

export function metricTextsOf (catalog: MetricCatalog): MetricTexts {
  return new Map(catalog.data.map((metric) => [metric.name, { label: metric.label, description: metric.description }]))
}

export function metricLabel (texts: MetricTexts, name: string): string {
  return texts.get(name)?.label ?? name
}

export function metricDescription (texts: MetricTexts, name: string): string {
  return texts.get(name)?.description ?? ''
}
