import type { ValidationIssue } from '../../../domain/errors.js'
import { DEFAULT_GAPS_MODE } from '../../../domain/gaps/modes.js'
import { resolvePeriod, type Period } from '../../../domain/period.js'
import {
  DEFAULT_REPORT_LIMIT, REPORT_DIMENSIONS, isTimeDimension,
  type ComparisonAsk, type ReportDimension, type ReportOrder, type ReportRequest,
} from '../../../domain/reports.js'
import { platformCodes, sortedIds } from '../../query/lists.js'
import type { ReportQuery, ReportRequestBody } from '../../schemas/reports.schemas.js'

/**
 * A POST /reports body that passed its schema → the service's ReportRequest, with the rules
 * across members the schema cannot say (each a 422 item naming the member): one time dimension at
 * most, order_by naming one of the request's metrics or dimensions, the periods, cursor or offset.
 */
export function reportRequestOf (body: ReportRequestBody, today: string, location: 'body' | 'query'): { request: ReportRequest, issues: ValidationIssue[] } {
  const issues: ValidationIssue[] = []
  const dimensions = (body.dimensions ?? []) as ReportDimension[]
  if (dimensions.filter(isTimeDimension).length > 1) {
    issues.push({ loc: [location, 'dimensions'], msg: 'At most one time dimension (date, week, month, quarter, year)', type: 'time_dimensions', ctx: { dimensions: dimensions.filter(isTimeDimension) } })
  }
  const orderBy: ReportOrder[] = []
  for (const item of body.order_by ?? []) {
    const named = (item.metric === undefined ? 0 : 1) + (item.dimension === undefined ? 0 : 1)
    if (named !== 1) {
      issues.push({ loc: [location, 'order_by'], msg: 'Each order_by item names exactly one metric or one dimension', type: 'order_by_item', ctx: {} })
      break
    }
    const key = (item.metric ?? item.dimension) as string
    const kind = item.metric === undefined ? 'dimension' : 'metric'
    const asked: readonly string[] = kind === 'metric' ? body.metrics : dimensions
    if (!asked.includes(key)) {
      issues.push({ loc: [location, 'order_by'], msg: `order_by ${kind} ${key} is not one of the request's ${kind === 'metric' ? 'metrics' : 'dimensions'}`, type: 'order_by_unknown', ctx: { [kind]: key } })
      break
    }
    orderBy.push({ key, kind, desc: item.desc === true })
  }
  const resolved = resolvePeriod({ since: body.since, until: body.until }, today)
  let period: Period = { since: today, until: today }
  if (resolved.ok) period = resolved.period
  else issues.push({ loc: [location, 'since'], ...resolved.problem })
  let comparison: ComparisonAsk | undefined
  if (typeof body.comparison === 'string') comparison = body.comparison
  else if (body.comparison !== undefined) {
    const other = resolvePeriod(body.comparison, today)
    if (other.ok) comparison = other.period
    else issues.push({ loc: [location, 'comparison'], ...other.problem })
  }
  if (body.cursor !== undefined && body.offset !== undefined) {
    issues.push({ loc: [location, 'offset'], msg: 'Use cursor or offset, not both', type: 'cursor_and_offset', ctx: {} })
  }
  const filters = body.filters ?? {}
  const include = body.include ?? []
  return {
    issues,
    request: {
      metrics: body.metrics,
      dimensions,
      period,
      brandIds: sortedIds(filters.brand_id),
      accountIds: sortedIds(filters.account_id),
      platforms: platformCodes(filters.platform),
      orderBy,
      limit: body.limit ?? DEFAULT_REPORT_LIMIT,
      offset: body.offset ?? 0,
      comparison,
      withTotals: include.includes('totals'),
      withStatus: include.includes('status'),
      gaps: body.gaps ?? DEFAULT_GAPS_MODE,
    },
  }
}

/** Every value of a query parameter, repeated or comma-separated, trimmed, empty ones dropped. */
function listOf (raw: URLSearchParams, name: string): string[] | undefined {
  const values = raw.getAll(name).flatMap((value) => value.split(',')).map((value) => value.trim()).filter((value) => value !== '')
  return values.length === 0 ? undefined : values
}

/** A strict non-negative integer, else the text itself (so that the schema refuses it, naming it). */
function integerOf (text: string): number | string {
  return /^\d{1,16}$/.test(text) ? Number(text) : text
}

/**
 * GET /reports' query string → the POST body it means (docs/reports.md "GET"): lists comma-separated
 * or repeated (`metrics=views&metrics=followers` = `metrics=views,followers`); other members keep
 * their last value, as on every route; `order_by=-views` is views descending; a comparison period is
 * `comparison_since` and `comparison_until`.
 */
export function bodyOfQuery (query: ReportQuery, rawQuery: string): Record<string, unknown> {
  const raw = new URLSearchParams(rawQuery)
  const body: Record<string, unknown> = {}
  const metrics = listOf(raw, 'metrics')
  body.metrics = metrics ?? []
  const dimensions = listOf(raw, 'dimensions')
  if (dimensions !== undefined) body.dimensions = dimensions
  if (query.since !== undefined) body.since = query.since
  if (query.until !== undefined) body.until = query.until
  const filters: Record<string, unknown> = {}
  const brandIds = listOf(raw, 'brand_id')
  if (brandIds !== undefined) filters.brand_id = brandIds.map(integerOf)
  const accountIds = listOf(raw, 'account_id')
  if (accountIds !== undefined) filters.account_id = accountIds.map(integerOf)
  const platforms = listOf(raw, 'platform')
  if (platforms !== undefined) filters.platform = platforms.map((platform) => platform.toLowerCase())
  if (Object.keys(filters).length > 0) body.filters = filters
  const orderBy = listOf(raw, 'order_by')
  if (orderBy !== undefined) {
    body.order_by = orderBy.map((item) => {
      const desc = item.startsWith('-')
      const name = desc ? item.slice(1) : item
      const member = (REPORT_DIMENSIONS as readonly string[]).includes(name) ? 'dimension' : 'metric'
      return desc ? { [member]: name, desc } : { [member]: name }
    })
  }
  if (query.limit !== undefined) body.limit = integerOf(query.limit)
  if (query.offset !== undefined) body.offset = integerOf(query.offset)
  if (query.cursor !== undefined) body.cursor = query.cursor
  if (query.comparison !== undefined) body.comparison = query.comparison
  else if (query.comparison_since !== undefined || query.comparison_until !== undefined) {
    body.comparison = { since: query.comparison_since, until: query.comparison_until }
  }
  const include = listOf(raw, 'include')
  if (include !== undefined) body.include = include.map((item) => item.toLowerCase())
  if (query.gaps !== undefined) body.gaps = query.gaps
  return body
}
