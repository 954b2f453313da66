import { sql, type Kysely } from 'kysely'
import type { Database } from '../database.js'
import { buildGroupedQuery, runGroupedQuery, type GroupedQueryInput } from './analytics-grouped.query.js'
import type { GroupRow } from '../../domain/analytics.js'

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

export async function runMonthlyQuery (db: Kysely<Database>, input: MonthlyQueryInput): Promise<GroupRow[]> {
  return await runGroupedQuery(buildMonthlyQuery(db, input))
}
