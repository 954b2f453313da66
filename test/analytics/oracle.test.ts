import { describe, it, before, after } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { DIALECTS } from '../helpers/stores.js'
import { generateDataset, insertDatasetAndReadModel, type AnalyticsDataset } from '../helpers/analytics-fixtures.js'
import { openPartnerApi, type PartnerApi } from '../helpers/partner-api.js'
import { oracle, type OracleQuery } from './oracle.js'

/**
 * Property-based: hundreds of generated queries (every type, filter combination, alias, split,
 * gaps, access errors), each compared field by field with the independent oracle; daily answers
 * are walked page by page to the end. Then the same queries on SQLite and PostgreSQL must give
 * byte-identical bodies.
 */

const DATASET: AnalyticsDataset = generateDataset({ seed: 20261121, start: '2026-01-20', days: 75 })
const ACCESSIBLE = [1, 2, 3]
const CODES = ['fb', 'ig', 'tk', 'yt', 'li', 'th', 'sc', 'da', 'pi']
const NAMES: Record<string, string> = { fb: 'facebook', ig: 'instagram', tk: 'tiktok', yt: 'youtube', li: 'linkedin', th: 'threads', sc: 'snapchat', da: 'dailymotion', pi: 'pinterest' }
const ACCOUNT_IDS = [100, 101, 102, 103, 201, 202, 203, 204, 205, 206, 400, 999]
const RUNS = Number(process.env.ORACLE_RUNS ?? 150)

interface Generated {
  oracle: OracleQuery
  query: Record<string, string>
}

/** Writes ids the many accepted ways: spaces, leading zeros, duplicates. */
const idsText = (ids: number[]) => fc.tuple(fc.boolean(), fc.boolean(), fc.boolean()).map(([pad, zeros, dup]) => {
  const items = ids.map((id) => `${zeros ? '00' : ''}${id}`)
  if (dup && items.length > 0) items.push(items[0] as string)
  return items.join(pad ? ' , ' : ',')
})

/** Writes platforms as codes or names, in any case. */
const platformsText = (codes: string[]) => fc.array(fc.constantFrom('code', 'name', 'upper'), { minLength: codes.length, maxLength: codes.length })
  .map((styles) => codes.map((code, i) => styles[i] === 'name' ? NAMES[code] as string : styles[i] === 'upper' ? code.toUpperCase() : code).reverse().join(','))

/** Accounts of the dataset by platform, plus ids that exist nowhere or in a brand not granted. */
const ACCOUNTS_BY_PLATFORM = Object.fromEntries(CODES.map((code) => [code, DATASET.accounts.filter((a) => a.platform === code).map((a) => Number(a.account_id))]))

/** Mostly valid scopes (brands, or accounts on their one platform), sometimes access errors. */
const scopeArbitrary = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      brandIds: fc.option(fc.subarray(ACCESSIBLE, { minLength: 1 }), { freq: 2 }),
      accountIds: fc.constant(null),
      platforms: fc.option(fc.subarray(CODES, { minLength: 1, maxLength: 4 }), { freq: 2 }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.constantFrom(...CODES.filter((code) => (ACCOUNTS_BY_PLATFORM[code] ?? []).length > 0)).chain((code) => fc.record({
      brandIds: fc.option(fc.subarray(ACCESSIBLE, { minLength: 1 }), { freq: 4 }),
      accountIds: fc.subarray(ACCOUNTS_BY_PLATFORM[code] ?? [], { minLength: 1 }).map((ids) => ids as number[] | null),
      platforms: fc.constant<string[] | null>([code]),
    })),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      brandIds: fc.option(fc.subarray([1, 2, 3, 4], { minLength: 1 }), { freq: 2 }),
      accountIds: fc.option(fc.subarray(ACCOUNT_IDS, { minLength: 1, maxLength: 3 }), { freq: 3 }),
      platforms: fc.option(fc.subarray(CODES, { minLength: 1, maxLength: 2 }), { freq: 2 }),
    }),
  },
)

const generated: fc.Arbitrary<Generated> = fc.record({
  type: fc.constantFrom('daily', 'monthly', 'agg') as fc.Arbitrary<OracleQuery['type']>,
  start: fc.integer({ min: 0, max: 95 }),
  length: fc.integer({ min: 0, max: 90 }),
  scope: scopeArbitrary,
  split: fc.option(fc.constantFrom('true', 'false', '1', '0', 'Yes', 'off'), { freq: 2 }),
}).map(({ scope, ...rest }) => ({ ...rest, ...scope })).chain((g) => fc.tuple(
  fc.constant(g),
  g.brandIds === null ? fc.constant(undefined) : idsText(g.brandIds),
  g.accountIds === null ? fc.constant(undefined) : idsText(g.accountIds),
  g.platforms === null ? fc.constant(undefined) : platformsText(g.platforms),
)).map(([g, brandText, accountText, platformText]) => {
  const day = (offset: number) => new Date(Date.UTC(2026, 0, 10 + offset)).toISOString().slice(0, 10)
  const since = day(g.start)
  const until = day(g.start + g.length)
  const query: Record<string, string> = { type: g.type, since, until }
  if (brandText !== undefined) query.brand_id = brandText
  if (accountText !== undefined) query.account_id = accountText
  if (platformText !== undefined) query.platform = platformText
  if (g.split !== null) query.split_by_platform = g.split
  const sortNum = (ids: number[]) => [...ids].sort((a, b) => a - b)
  return {
    query,
    oracle: {
      type: g.type,
      since,
      until,
      ...(g.brandIds === null ? {} : { brandIds: sortNum(g.brandIds) }),
      ...(g.accountIds === null ? {} : { accountIds: sortNum(g.accountIds) }),
      ...(g.platforms === null ? {} : { platforms: CODES.filter((code) => g.platforms?.includes(code)) }),
      split: ['true', '1', 'Yes'].includes(g.split ?? ''),
    },
  }
})

/** The whole answer: a daily query is followed through every page, checking page sizes on the way. */
async function fetchAll (client: PartnerApi, query: Record<string, string>) {
  const first = await client.analytics(query)
  if (first.status !== 200 || query.type !== 'daily') return first
  const data = [...first.body.data]
  let page = first.body
  while (typeof page.next_cursor === 'string') {
    assert.equal(page.data.length, 20, 'a page before the last holds 20 entries')
    const next = await client.analytics({ ...query, cursor: page.next_cursor })
    assert.equal(next.status, 200)
    page = next.body
    assert.ok(page.data.length <= 20)
    data.push(...page.data)
  }
  const { next_cursor: _ignored, ...envelope } = first.body
  return { status: 200, body: { ...envelope, data, total: data.length } }
}

for (const dialect of DIALECTS) {
  describe(`GET /analytics/ against the oracle (${dialect})`, () => {
    let client: PartnerApi
    before(async () => {
      client = await openPartnerApi(dialect, { seed: async (t) => { await insertDatasetAndReadModel(t.store, DATASET) }, brandIds: ACCESSIBLE })
    })
    after(async () => { await client.close() })

    it(`matches the oracle on ${RUNS} generated queries`, async () => {
      const seen = { ok: 0, withEntries: 0, multiPage: 0, errors: 0 }
      await fc.assert(fc.asyncProperty(generated, async ({ query, oracle: q }) => {
        const expected = oracle(DATASET, ACCESSIBLE, q)
        const actual = await fetchAll(client, query)
        assert.equal(actual.status, expected.status, JSON.stringify(query))
        if (expected.status !== 200) {
          seen.errors++
          return
        }
        assert.deepEqual(actual.body, expected.body, JSON.stringify(query))
        seen.ok++
        if (expected.body.data.length > 0) seen.withEntries++
        if (q.type === 'daily' && expected.body.data.length > 20) seen.multiPage++
      }), { numRuns: RUNS, seed: 4242 })
      // The generator must really exercise the reports, not mostly produce errors or empty answers.
      assert.ok(seen.withEntries >= RUNS / 3 && seen.multiPage >= 5 && seen.errors >= 10, JSON.stringify(seen))
    })

    it('walks a long daily answer page by page: 20 per page, no entry twice, none missing', async () => {
      const query = { type: 'daily', since: '2026-01-15', until: '2026-04-10', platform: 'fb,ig,tk,yt,li,th,sc,da,pi' }
      const all = await fetchAll(client, query)
      const expected = oracle(DATASET, ACCESSIBLE, { type: 'daily', since: query.since, until: query.until, platforms: CODES, split: false })
      assert.equal(expected.status, 200)
      if (expected.status === 200) {
        assert.ok(expected.body.data.length > 100, 'the walk spans many pages')
        assert.deepEqual(all.body.data, expected.body.data)
      }
    })
  })
}

describe('SQLite and PostgreSQL give identical answers on the same data', () => {
  const clients: PartnerApi[] = []
  before(async () => {
    for (const dialect of DIALECTS) clients.push(await openPartnerApi(dialect, { seed: async (t) => { await insertDatasetAndReadModel(t.store, DATASET) }, brandIds: ACCESSIBLE }))
  })
  after(async () => {
    for (const client of clients) await client.close()
  })

  /** The body without what differs between any two answers (the request id and the second it was sent). */
  function comparable (body: Record<string, unknown>): Record<string, unknown> {
    if (!('request_id' in body)) return body
    assert.match(String(body.timestamp), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/)
    return { ...body, request_id: '…', timestamp: '…' }
  }

  /** Queries whose answers are errors built from what the store returned (which ids it found). */
  const ERROR_QUERIES: Array<Record<string, string>> = [
    { type: 'agg', account_id: '100,999', platform: 'fb' },
    { type: 'daily', account_id: '100,204,400', platform: 'facebook', since: '2026-01-20', until: '2026-02-20' },
    { type: 'monthly', account_id: '201, 999, 998', platform: 'li', brand_id: '2' },
    { type: 'agg', account_id: '100', platform: 'ig', brand_id: '1' },
    { type: 'agg', brand_id: '1,4,5' },
    { type: 'agg', account_id: '100', platform: 'fb,ig' },
    { type: 'daily', since: '2026-02-30', brand_id: '1,,2', platform: 'myspace' },
  ]

  it('on 60 generated queries and the access errors, every page and cursor included, error bodies too', async () => {
    const [sqlite, postgres] = clients as [PartnerApi, PartnerApi]
    const statuses: Record<number, number> = {}
    const queries = [...fc.sample(generated, { numRuns: 60, seed: 7 }).map(({ query }) => query), ...ERROR_QUERIES]
    for (const query of queries) {
      let cursor: string | undefined
      do {
        const paged = cursor === undefined ? query : { ...query, cursor }
        const a = await sqlite.analytics(paged)
        const b = await postgres.analytics(paged)
        statuses[a.status] = (statuses[a.status] ?? 0) + 1
        assert.equal(a.status, b.status, JSON.stringify(paged))
        assert.deepEqual(comparable(a.body), comparable(b.body), JSON.stringify(paged))
        cursor = a.body.next_cursor as string | undefined
      } while (cursor !== undefined)
    }
    // Every kind of refusal was compared, not only answers.
    assert.deepEqual(Object.keys(statuses).sort(), ['200', '400', '403', '404', '422'], JSON.stringify(statuses))
  })
})
