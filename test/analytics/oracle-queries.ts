import fc from 'fast-check'
import { ORDER, type OracleQuery } from './oracle.js'

/** The query string of an oracle query (codes as given, lists comma-separated). */
export function queryOf (q: OracleQuery): Record<string, string> {
  return {
    type: q.type,
    since: q.since,
    until: q.until,
    ...(q.brandIds === undefined ? {} : { brand_id: q.brandIds.join(',') }),
    ...(q.accountIds === undefined ? {} : { account_id: q.accountIds.join(',') }),
    ...(q.platforms === undefined ? {} : { platform: q.platforms.join(',') }),
    ...(q.split ? { split_by_platform: 'true' } : {}),
  }
}

/**
 * Random oracle queries over the generated datasets' first months (from 2026-01-10): any report
 * type, a period of up to 61 days, maybe some of the `accessible` brands, maybe up to three platforms.
 */
export function generatedQueries (accessible: number[]): fc.Arbitrary<OracleQuery> {
  return fc.record({
    type: fc.constantFrom<OracleQuery['type']>('daily', 'monthly', 'agg'),
    start: fc.integer({ min: 0, max: 90 }),
    length: fc.integer({ min: 0, max: 60 }),
    brands: fc.option(fc.subarray(accessible, { minLength: 1 })),
    platforms: fc.option(fc.subarray(ORDER, { minLength: 1, maxLength: 3 })),
    split: fc.boolean(),
  }).map(({ type, start, length, brands, platforms, split }) => {
    const since = new Date(Date.UTC(2026, 0, 10 + start)).toISOString().slice(0, 10)
    const until = new Date(Date.UTC(2026, 0, 10 + start + length)).toISOString().slice(0, 10)
    return { type, since, until, split, ...(brands === null ? {} : { brandIds: brands }), ...(platforms === null ? {} : { platforms }) }
  })
}
