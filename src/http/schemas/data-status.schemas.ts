import { Type, type Static } from '@sinclair/typebox'
import { DATA_STATUS_DEFAULT_LIMIT, DATA_STATUS_MAX_LIMIT } from '../../domain/data-status.js'
import { PeriodScopeParams } from './analytics.schemas.js'
import { component } from './components.js'
import { DateMember, DateRange, TimestampMember } from './formats.js'
import { CursorParam } from './params.schemas.js'

/** GET /data-status: the query, an account's status and the page (docs/api-reference.md "Data status"). */

export const DataStatusQuery = Type.Object({
  ...PeriodScopeParams,
  limit: Type.Integer({ minimum: 1, maximum: DATA_STATUS_MAX_LIMIT, default: DATA_STATUS_DEFAULT_LIMIT, description: `Accounts per page, 1 to ${DATA_STATUS_MAX_LIMIT}` }),
  cursor: Type.Optional(CursorParam('next_cursor of the previous page of this same query')),
})
export type DataStatusQuery = Static<typeof DataStatusQuery>

const date = (description: string) => ({ ...DateMember(`${description}, YYYY-MM-DD`), examples: ['2026-11-04'] })

export const AccountStatus = component('AccountStatus', Type.Object({
  brand_id: Type.Integer(),
  platform: Type.String({ description: 'Platform code' }),
  account_id: Type.Integer({ description: 'Unique on its platform only' }),
  account_name: Type.String(),
  first_date: Type.Union([date('First day with data, whole history'), Type.Null()], { description: 'First day with data (whole history); null when the account has none' }),
  last_date: Type.Union([date('Last day with data, whole history'), Type.Null()], { description: 'Last day with data (whole history); null when the account has none' }),
  synced_at: Type.Union([TimestampMember('UTC to the second'), Type.Null()], { description: 'When an import last changed this account\'s data, UTC to the second (2026-11-21T12:00:00Z); null when not recorded' }),
  days_expected: Type.Integer({ minimum: 0, description: 'Days from max(since, first_date) to min(until, last_date), inclusive; 0 when the coverage does not meet the period' }),
  days_reported: Type.Integer({ minimum: 0, description: 'Days of that span with data' }),
  missing: Type.Array(DateRange, { description: 'The days of that span without data, as inclusive ranges, ascending; days outside the coverage are not missing' }),
}))

export const DataStatusPage = component('DataStatusPage', Type.Object({
  data: Type.Array(AccountStatus, { description: 'One entry per account in scope, by brand_id, platform (canonical order), account_id' }),
  total: Type.Integer({ description: 'Accounts on this page' }),
  since: DateMember('Start of the period, YYYY-MM-DD'),
  until: DateMember('End of the period, YYYY-MM-DD'),
  platforms: Type.Union([Type.Array(Type.String()), Type.Literal('all')], { description: 'Requested platform codes in canonical order, or "all"' }),
  brand_ids: Type.Array(Type.Integer(), { description: 'Brands in scope, ascending' }),
  brand_id: Type.Optional(Type.Integer({ description: 'When exactly one brand_id was given' })),
  next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as cursor for the next page; null on the last page' }),
}))
export type DataStatusPage = Static<typeof DataStatusPage>
