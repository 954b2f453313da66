import { sql, type Kysely } from 'kysely'
import type { Database } from '../database.js'
import { buildGroupedQuery, type GroupedQueryInput } from './analytics-grouped.query.js'

/**
 * type=monthly: one group per calendar month (inside the period) × brand or account × platform,
 * newest month first, every month in one response (at most 37 months by the period limit).
 */

export type MonthlyQueryInput = Omit<GroupedQueryInput, 'grouping' | 'lastDate'> & {
  grouping: Omit<GroupedQueryInput['grouping'], 'bucket'>
}

export function buildMonthlyQuery (db: Kysely<Database>, input: MonthlyQueryInput) {
  return buildGroupedQuery(db, { ...input, grouping: { ...input.grouping, bucket: 'month' } })
    .orderBy(sql.ref('r.bucket'), 'desc')
    .orderBy(sql.ref('r.group_id'), 'asc')
    .orderBy(sql.ref('r.platform_rank'), 'asc')
}
