import { sql, type RawBuilder } from 'kysely'
import { ENGAGEMENT_DENOMINATOR } from '../../domain/metrics.js'
import { PLATFORM_CODES } from '../../domain/platforms.js'

/** SQL pieces shared by the analytics and posts queries. Platform codes are our constants, never input. */

/** Platforms whose engagement rate divides by reach; the others divide by views. */
const REACH_PLATFORMS = PLATFORM_CODES.filter((code) => ENGAGEMENT_DENOMINATOR[code] === 'reach')

/** Per row: the engagement denominator that row contributes (docs/api-reference.md "GET /analytics/"). */
export function engagementDenominatorOfRow (platform: RawBuilder<unknown>, reach: RawBuilder<unknown>, views: RawBuilder<unknown>): RawBuilder<number | null> {
  const codes = sql.join(REACH_PLATFORMS.map((code) => sql.lit(code)))
  return sql<number | null>`case when ${platform} in (${codes}) then ${reach} else ${views} end`
}

/** Per row: the canonical rank of its platform, as a SQL CASE. */
export function platformRankOfRow (platform: RawBuilder<unknown>): RawBuilder<number> {
  const branches = PLATFORM_CODES.map((code, rank) => sql`when ${sql.lit(code)} then ${sql.lit(rank)}`)
  return sql<number>`case ${platform} ${sql.join(branches, sql` `)} end`
}
