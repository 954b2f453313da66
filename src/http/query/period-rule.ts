import type { ValidationIssue } from '../../domain/errors.js'
import { isCalendarDate } from '../../domain/dates.js'
import { resolvePeriod, type Period } from '../../domain/period.js'
import type { QueryRule } from '../route-access.js'

/**
 * since/until together (docs/api-reference.md "GET /analytics/"): since > until, or a period over 1096 days, is a 422
 * on `since`. Dates the schema refuses are left to the schema's own issues.
 */
export const periodRule: QueryRule = (query, today) => {
  const { since, until } = query
  if ((since !== undefined && !isCalendarDate(since)) || (until !== undefined && !isCalendarDate(until))) return []
  const resolved = resolvePeriod({ since: since as string | undefined, until: until as string | undefined }, today)
  return resolved.ok ? [] : [{ loc: ['query', 'since'], ...resolved.problem }]
}

/** The period of a query that passed `periodRule`. */
export function periodOf (query: { since?: string | undefined, until?: string | undefined }, today: string): Period {
  const resolved = resolvePeriod(query, today)
  if (!resolved.ok) throw new Error(`periodOf called on a query the period rule refused: ${resolved.problem.msg}`)
  return resolved.period
}

/** The 422 item of a cursor that is garbage, edited, from another query, or too old. */
export function cursorIssue (type: 'cursor_invalid' | 'cursor_expired', ctx: Record<string, unknown> = {}): ValidationIssue {
  return type === 'cursor_invalid'
    ? { loc: ['query', 'cursor'], msg: 'Invalid cursor: use the next_cursor of a response to this same query', type, ctx }
    : { loc: ['query', 'cursor'], msg: 'Cursor expired: a page walk must finish within 24 hours; start again from the first page', type, ctx }
}
