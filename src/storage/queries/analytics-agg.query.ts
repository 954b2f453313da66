import { sql, type Kysely } from 'kysely'
import type { Database } from '../database.js'
import { buildGroupedQuery, type GroupedQueryInput } from './analytics-grouped.query.js'

/**
 * type=agg: one group per brand or account × platform over the whole period (or per platform
 * only with split_by_platform=true), ordered by brand or account id, then platform.
 */

export type AggQueryInput = Omit<GroupedQueryInput, 'grouping' | 'lastDate'> & {
  grouping: Omit<GroupedQueryInput['grouping'], 'bucket'>
}

export function buildAggQuery (db: Kysely<Database>, input: AggQueryInput) {
  return buildGroupedQuery(db, { ...input, grouping: { ...input.grouping, bucket: 'period' } })
    .orderBy(sql.ref('r.group_id'), 'asc')
    .orderBy(sql.ref('r.platform_rank'), 'asc')
}
