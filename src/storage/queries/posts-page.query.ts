import { sql, type Expression, type Kysely, type RawBuilder, type SqlBool } from 'kysely'
import type { Scope } from '../../domain/scope.js'
import { POST_COLUMNS } from '../../domain/post-fields.js'
import type { PostType } from '../../domain/post-types.js'
import type { Order, OrderBy, PostPosition } from '../../domain/posts.js'
import type { Period } from '../../domain/period.js'
import type { Dialect } from '../db.js'
import type { Database } from '../database.js'
import { engagementDenominatorOfRow, platformRankOfRow } from './sql-helpers.js'

/**
 * One page of GET /posts as a Kysely query (built, not run, so tests can read its SQL).
 *
 * Reads "posts as of revision S" (migration 2026_11_22_0000_post_snapshots): current rows written
 * at or before S, plus replaced versions that were current at S. Each of the two branches is
 * filtered by scope, period, post type and the keyset position, then the union is ordered by
 * (sort value nulls last, id, platform rank) in one direction and cut at limit + 1. No OFFSET:
 * a later page starts strictly after the previous page's last record.
 */

export interface PostsPageInput {
  dialect: Dialect
  scope: Scope
  period: Period
  postTypes: PostType[] | undefined
  orderBy: OrderBy
  order: Order
  /** Rows to fetch: the page size plus one, to know whether another page exists. */
  fetch: number
  snapshot: number
  after: PostPosition | undefined
}

const MICROS_PER_CENT = 10_000

/**
 * The value a page is sorted by, per row. Revenue and engagement rate sort by the value the
 * record shows (cents; the rate rounded half-up to 6 decimals, as an integer of millionths), so
 * two records showing the same figure are a tie, broken by id. Integer arithmetic only: the same
 * numbers in both stores, and exact comparisons against the cursor.
 */
export function sortValueOf (orderBy: OrderBy): RawBuilder<string | number | null> {
  switch (orderBy) {
    case 'created_time': return sql`v.created_time`
    case 'interactions': return sql`v.interactions`
    case 'reach': return sql`v.reach`
    case 'views': return sql`v.views`
    case 'revenue': return sql`(v.revenue_micros + ${sql.lit(MICROS_PER_CENT / 2)}) / ${sql.lit(MICROS_PER_CENT)}`
    case 'engagement_rate': {
      const denominator = engagementDenominatorOfRow(sql`v.platform`, sql`v.reach`, sql`v.views`)
      return sql`case when v.interactions is null or ${denominator} is null then null
        when ${denominator} = 0 then 0
        else (v.interactions * ${sql.lit(2_000_000)} + ${denominator}) / (${sql.lit(2)} * ${denominator}) end`
    }
  }
}

/** Ids compare bytewise in both stores (PostgreSQL's default collation is locale-aware). */
function idOf (dialect: Dialect, alias: string): RawBuilder<string> {
  return dialect === 'postgres' ? sql`${sql.ref(`${alias}.id`)} collate "C"` : sql`${sql.ref(`${alias}.id`)}`
}

/** Rows strictly after `after` in the walk's order (sort value nulls last, then id, then platform rank). */
function afterPosition (input: PostsPageInput, after: PostPosition): RawBuilder<SqlBool> {
  const beyond = input.order === 'desc' ? sql.raw('<') : sql.raw('>')
  const value = sortValueOf(input.orderBy)
  const id = idOf(input.dialect, 'v')
  const rank = platformRankOfRow(sql`v.platform`)
  const keyAfter = sql<SqlBool>`(${id} ${beyond} ${after.id} or (${id} = ${after.id} and ${rank} ${beyond} ${after.platformRank}))`
  if (after.value === null) return sql<SqlBool>`(${value} is null and ${keyAfter})`
  return sql<SqlBool>`(${value} is null or ${value} ${beyond} ${after.value} or (${value} = ${after.value} and ${keyAfter}))`
}

/** One branch: the versions of `table` visible at the snapshot, filtered, with their sort keys. */
function branch (db: Kysely<Database>, input: PostsPageInput, table: 'posts' | 'post_history') {
  const { scope, period } = input
  let query = db.selectFrom(`${table} as v` as 'posts as v')
    .innerJoin('accounts as a', (join) => join.onRef('a.platform', '=', 'v.platform').onRef('a.account_id', '=', 'v.account_id'))
    .where(sql.ref('v.revision'), '<=', input.snapshot)
    // Inclusive UTC calendar dates of created_time (whole seconds): no bound past 9999-12-31.
    .where('v.created_time', '>=', `${period.since}T00:00:00Z`)
    .where('v.created_time', '<=', `${period.until}T23:59:59Z`)
  if (table === 'post_history') query = query.where(sql.ref('v.superseded_revision'), '>', input.snapshot)
  query = scope.kind === 'accounts'
    ? query.where('v.platform', '=', scope.platform).where('v.account_id', 'in', scope.accounts.map((account) => Number(account.account_id)))
    : query.where('a.brand_id', 'in', scope.brandIds)
  if (scope.kind === 'brands' && scope.platforms !== undefined) query = query.where('v.platform', 'in', scope.platforms)
  if (input.postTypes !== undefined) query = query.where('v.post_type', 'in', input.postTypes)
  const after = input.after
  if (after !== undefined) query = query.where((): Expression<SqlBool> => afterPosition(input, after))
  return query.select([
    ...POST_COLUMNS.map((column) => `v.${column}` as const),
    'a.account_name',
    'a.brand_id',
    sortValueOf(input.orderBy).as('sort_value'),
    platformRankOfRow(sql`v.platform`).as('platform_rank'),
  ])
}

export function buildPostsPageQuery (db: Kysely<Database>, input: PostsPageInput) {
  const direction = sql.raw(input.order)
  return db.selectFrom(branch(db, input, 'posts').unionAll(branch(db, input, 'post_history')).as('p'))
    .selectAll()
    .orderBy(sql`case when p.sort_value is null then 1 else 0 end`)
    .orderBy(sql`p.sort_value ${direction}`)
    .orderBy(sql`${idOf(input.dialect, 'p')} ${direction}`)
    .orderBy(sql`p.platform_rank ${direction}`)
    .limit(input.fetch)
}

export type PostPageRow = Awaited<ReturnType<ReturnType<typeof buildPostsPageQuery>['execute']>>[number]
