import { NO_VALUE } from '../model/format.js'

/**
 * One figure in a table cell. The API distinguishes "not reported" (null) from "the platform
 * has no such metric" (field absent); both show as a dash, never as 0, and say which on hover
 * and to screen readers.
 */
export function MetricCell ({ row, field, format }: { row: Record<string, unknown>, field: string, format: (value: unknown) => string }) {
  const value = row[field]
  if (typeof value === 'number') return <td data-field={field}>{format(value)}</td>
  const why = field in row ? 'not reported' : 'not available here'
  return <td data-field={field} class='no-value' title={why}>{NO_VALUE}<span class='visually-hidden'> ({why})</span></td>
}
