/**
 * How numbers are written on screen. Always en-US grouping (1,234,567) whatever the browser's
 * language, so a figure reads the same in a shared screenshot and in the tests. Nothing is
 * rounded beyond what the API already rounded: counts are integers, averages and money have 2 decimals, and an
 * engagement rate (a ratio with 6 decimals, 0.034512) is shown as a percentage with 4 (3.4512 %).
 */

const INTEGER = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 })
const UP_TO_TWO_DECIMALS = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 })
const TWO_DECIMALS = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })

/** What is shown where the API gives no value (null, or a field the platform does not have). */
export const NO_VALUE = '—'

export function formatInteger (value: unknown): string {
  return typeof value === 'number' && Number.isFinite(value) ? INTEGER.format(value) : NO_VALUE
}

/** Averages: the API rounds them to 2 decimals, and so they are shown (779,968.5). */
export function formatUpTo2 (value: unknown): string {
  return typeof value === 'number' && Number.isFinite(value) ? UP_TO_TWO_DECIMALS.format(value) : NO_VALUE
}

export function formatDecimal2 (value: unknown): string {
  return typeof value === 'number' && Number.isFinite(value) ? TWO_DECIMALS.format(value) : NO_VALUE
}

/** A ratio with up to 6 decimals as a percentage with 4, by moving the decimal point (no float error). */
export function formatRatioAsPercent (value: unknown): string {
  if (typeof value !== 'number' || !Number.isFinite(value)) return NO_VALUE
  const negative = value < 0
  const millionths = Math.round(Math.abs(value) * 1_000_000)
  const whole = Math.floor(millionths / 10_000)
  const fraction = String(millionths % 10_000).padStart(4, '0')
  return `${negative ? '-' : ''}${INTEGER.format(whole)}.${fraction} %`
}

/** The change from `previous` to `current`: absolute and relative, with a word for the direction. */
export function describeChange (current: number, previous: number, format: (value: number) => string): { direction: 'up' | 'down' | 'flat' | 'new', text: string } {
  const delta = current - previous
  if (delta === 0) return { direction: 'flat', text: 'no change' }
  const sign = delta > 0 ? '+' : '−'
  const absolute = `${sign}${format(Math.abs(delta)).replace(/ %$/, ' pt')}`
  if (previous === 0) return { direction: 'new', text: `${absolute} (previous period had 0)` }
  const percent = Math.abs(delta / previous) * 100
  return { direction: delta > 0 ? 'up' : 'down', text: `${sign}${percent.toFixed(1)} % (${absolute})` }
}
