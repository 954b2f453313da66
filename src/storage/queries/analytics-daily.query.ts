import { sql, type Kysely } from 'kysely'
import type { Database } from '../database.js'
import { buildGroupedQuery, runGroupedQuery, type GroupedQueryInput } from './analytics-grouped.query.js'
import { DAILY_PAGE_SIZE, type DailyPosition, type EntryKey, type GroupRow } from '../../domain/analytics.js'

/**
 * type=daily: one group per day × brand or account × platform, newest day first, 20 per page.
 * Paging is keyset over (date desc, group id asc, platform rank asc): the next page starts after
 * the last entry shown, computed in SQL with LIMIT 21 (the 21st only says "there is more").
 */

export type DailyQueryInput = Omit<GroupedQueryInput, 'grouping' | 'lastDate'> & {
  grouping: Omit<GroupedQueryInput['grouping'], 'bucket'>
  /** Start after this entry (from the cursor); undefined for the first page. */
  after?: DailyPosition | undefined
}

export function buildDailyQuery (db: Kysely<Database>, input: DailyQueryInput) {
  const { after } = input
  let query = buildGroupedQuery(db, { ...input, grouping: { ...input.grouping, bucket: 'day' }, lastDate: after?.date })
  if (after !== undefined) {
    // Filtering rows on their group keys is filtering whole groups, before any summing.
    query = query.where(sql<boolean>`(r.bucket < ${after.date}
      or (r.bucket = ${after.date} and r.group_id > ${after.groupId})
      or (r.bucket = ${after.date} and r.group_id = ${after.groupId} and r.platform_rank > ${after.platformRank}))`)
  }
  return query
    .orderBy(sql.ref('r.bucket'), 'desc')
    .orderBy(sql.ref('r.group_id'), 'asc')
    .orderBy(sql.ref('r.platform_rank'), 'asc')
    .limit(DAILY_PAGE_SIZE + 1)
}

export interface DailyPage {
  rows: GroupRow[]
  /**
   * The page's entries as JSON text, when the read model holds them rendered (brands over every
   * platform); `rows` is then empty.
   */
  rendered?: string[] | undefined
  /** The keys of the rendered entries, in the same order (include=status looks them up). */
  renderedKeys?: EntryKey[] | undefined
  /** Set when another page exists: the position of this page's last row. */
  next: DailyPosition | undefined
}

export async function runDailyQuery (db: Kysely<Database>, input: DailyQueryInput): Promise<DailyPage> {
  return pageOf(await runGroupedQuery(buildDailyQuery(db, input)))
}

/** Up to DAILY_PAGE_SIZE + 1 rows in page order → the page, and where the next starts when there is one. */
export function pageOf (rows: GroupRow[]): DailyPage {
  if (rows.length <= DAILY_PAGE_SIZE) return { rows, next: undefined }
  const page = rows.slice(0, DAILY_PAGE_SIZE)
  const last = page[page.length - 1] as GroupRow
  return { rows: page, next: { date: last.bucket, groupId: Number(last.group_id), platformRank: Number(last.platform_rank) } }
}
