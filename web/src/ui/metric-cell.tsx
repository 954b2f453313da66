import { NO_VALUE } from '../model/format.js'
import type { ValueMark } from '../model/status.js'

/**
 * One figure in a table cell. The API distinguishes "not reported" (null) from "the platform
 * has no such metric" (field absent); both show as a dash, never as 0, and say which on hover
 * and to screen readers. With a `mark` (include=status), a figure not every account reported
 * says so in words after it, as the charts' data tables do: "(⚠ 1 account carried from its last
 * report)"; one no account-day reported is a dash, "— (no data)", never its 0.
 */
export function MetricCell ({ row, field, format, mark }: { row: Record<string, unknown>, field: string, format: (value: unknown) => string, mark?: ValueMark }) {
  const value = row[field]
  if (typeof value === 'number') {
    if (mark === undefined) return <td data-field={field}>{format(value)}</td>
    // A row of such cells would repeat the same words: the cell says "no data", hover and screen readers why.
    if (mark.kind === 'no-data') return <td data-field={field} class='no-value' data-mark={mark.kind} title={`no data; ${mark.text}`}>{NO_VALUE} (no data)<span class='visually-hidden'> ({mark.text})</span></td>
    return <td data-field={field} class='incomplete-value' data-mark={mark.kind}>{format(value)} <span class='warning'>(⚠ {mark.text})</span></td>
  }
  const why = field in row ? 'not reported' : 'not available here'
  return <td data-field={field} class='no-value' title={why}>{NO_VALUE}<span class='visually-hidden'> ({why})</span></td>
}
