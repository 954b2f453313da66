import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { FEED_WINDOW } from '../../src/services/changes/changes.service.js'
import { brandRange, insertBrandsWithAccounts } from '../helpers/fixtures.js'
import { bearer, createPartner, loginToken } from '../helpers/partners.js'
import { openPartnerApi, type ApiResponse, type PartnerApi, type Query } from '../helpers/partner-api.js'
import { DIALECTS } from '../helpers/stores.js'
import { seedExtraBrands, grantsFor, importEvent, recordSync, recordSyncs, recordUnsynced, STRATEGIES, visibleTo, wire, type WrittenEvent, type FeedPageBody } from './feed-fixtures.js'

/**
 * GET /changes (docs/api-reference.md "Change feed"): paging, filters, start=latest, cursors
 * bound to the filters and signed, and the bounded window of one page. Events are written through
 * the change log's storage API; what a page must hold is computed from the model of what was
 * written (feed-fixtures.ts), independently of the feed's own query.
 */

const CREATED_AT = '2026-11-25T10:00:00Z'
const GRANTED = [1, 2, 3]

for (const dialect of DIALECTS) {
  for (const strategy of STRATEGIES) {
    describe(`GET /changes (${dialect}, ${strategy})`, () => {
      let api: PartnerApi
      let written: WrittenEvent[]
      const changes = async (query: Query = {}): Promise<ApiResponse<FeedPageBody>> => await api.get<FeedPageBody>('/changes', query)

      before(async () => {
        api = await openPartnerApi(dialect, {
          seed: async (test) => { await insertBrandsWithAccounts(test.store.db, brandRange(1, 6, 2)); await seedExtraBrands(test.store.db) },
          brandIds: grantsFor(strategy, GRANTED),
        })
        const db = api.test.store.db
        // 13 syncs of 10 events over brands 1..5, access events of the partner and of someone else between them.
        written = await recordSyncs(db, { count: 6, perSync: 10, brandIds: [1, 2, 3, 4, 5], createdAt: CREATED_AT })
        written.push(...await recordUnsynced(db, [
          { type: 'access.granted', userId: api.partner.userId, data: { brand_id: 3 } },
          { type: 'access.granted', userId: 'usr_someone_else', data: { brand_id: 1 } },
          { type: 'access.revoked', userId: api.partner.userId, data: { brand_id: 6 } },
        ], '2026-11-25T10:00:01Z'))
        written.push(...await recordSyncs(db, { count: 7, perSync: 10, brandIds: [5, 4, 3, 2, 1], createdAt: '2026-11-25T10:00:02Z' }))
      })
      after(async () => { await api.close() })

      /** Every page from the oldest event kept, following next_cursor while has_more. */
      async function walk (query: Query = {}, maxPages = 500): Promise<Array<ApiResponse<FeedPageBody>>> {
        const pages: Array<ApiResponse<FeedPageBody>> = []
        let cursor: string | undefined
        for (;;) {
          const page = await changes(cursor === undefined ? query : { ...query, cursor })
          assert.equal(page.status, 200, JSON.stringify(page.body))
          pages.push(page)
          if (!page.body.has_more) return pages
          cursor = page.body.next_cursor
          assert.ok(pages.length < maxPages, 'the walk ends')
        }
      }

      it('pages through every visible event in commit order with every limit, with no empty trailing page', async () => {
        const expected = visibleTo(written, api.partner.userId, GRANTED).map(wire)
        // 36 events of brands 1-3 in the first six syncs, 2 access events of the partner, 42 in the next seven.
        assert.equal(expected.length, 80)
        for (const limit of [1, 2, 3, 9, 27, 50, 80, 81, 100]) {
          const pages = await walk(limit === 50 ? {} : { limit: String(limit) })
          assert.deepEqual(pages.flatMap((page) => page.body.data), expected, `limit ${limit}`)
          assert.equal(pages.length, Math.ceil(expected.length / limit), `limit ${limit}: pages`)
          for (const [index, page] of pages.entries()) {
            const last = index === pages.length - 1
            assert.equal(page.body.data.length, last ? expected.length - limit * index : limit, `limit ${limit} page ${index}`)
            assert.equal(page.body.has_more, !last)
            assert.equal(typeof page.body.next_cursor, 'string')
            assert.deepEqual(Object.keys(page.body), ['data', 'has_more', 'next_cursor'])
          }
        }
      })

      it('answers the last cursor with an empty page, and later with exactly the events written since', async () => {
        const pages = await walk({ limit: '100' })
        const stored = pages[pages.length - 1]?.body.next_cursor as string
        const empty = await changes({ cursor: stored })
        assert.deepEqual([empty.status, empty.body.data, empty.body.has_more], [200, [], false])
        const fresh = await recordSync(api.test.store.db, [importEvent(2, 0), importEvent(4, 1), importEvent(1, 2)], '2026-11-25T11:00:00Z')
        const next = await changes({ cursor: stored })
        assert.deepEqual(next.body.data, visibleTo(fresh, api.partner.userId, GRANTED).map(wire))
        assert.equal(next.body.has_more, false)
        // Read again with the newer cursor: nothing, and it never goes back.
        const again = await changes({ cursor: next.body.next_cursor })
        assert.deepEqual(again.body.data, [])
        written.push(...fresh)
      })

      it('filters by brand_id and type, each filter and both, in commit order', async () => {
        const mine = visibleTo(written, api.partner.userId, GRANTED)
        const byBrand = await walk({ brand_id: '2', limit: '7' })
        assert.deepEqual(byBrand.flatMap((page) => page.body.data), mine.filter((event) => event.brandId === 2).map(wire))
        const byType = await walk({ type: 'posts.updated,access.revoked', limit: '5' })
        assert.deepEqual(byType.flatMap((page) => page.body.data), mine.filter((event) => ['posts.updated', 'access.revoked'].includes(event.type)).map(wire))
        const both = await walk({ brand_id: '3,1', type: 'brand.updated,access.granted' })
        assert.deepEqual(both.flatMap((page) => page.body.data), mine.filter((event) => [1, 3].includes(event.brandId) && ['brand.updated', 'access.granted'].includes(event.type)).map(wire))
        assert.ok(both.flatMap((page) => page.body.data).some((event) => event.type === 'access.granted'), 'the partner\'s own access event of brand 3 is there')
      })

      it('refuses a brand_id the partner cannot see (403) and unknown or feed-less types (422)', async () => {
        const forbidden = await changes({ brand_id: '1,4' })
        assert.equal(forbidden.status, 403)
        assert.equal(forbidden.body.error_code, 'FORBIDDEN')
        assert.equal(forbidden.body.detail, 'You do not have access to brand_id 4')
        for (const type of ['analytics.created', 'webhook.test']) {
          const refused = await changes({ type: `posts.updated,${type}` })
          assert.equal(refused.status, 422)
          assert.deepEqual((refused.body.detail as Array<{ loc: string[], type: string, ctx: { item: string } }>).map((item) => [item.loc, item.type, item.ctx.item]), [[['query', 'type'], 'enum', type]])
        }
      })

      it('checks limit: 1 to 100, decimal digits', async () => {
        for (const limit of ['0', '101', '-1', 'ten', '1.0']) {
          const refused = await changes({ limit })
          assert.equal(refused.status, 422, limit)
          assert.deepEqual((refused.body.detail as Array<{ loc: string[] }>).map((item) => item.loc), [['query', 'limit']], limit)
        }
        assert.equal((await changes({ limit: '1' })).body.data.length, 1)
        assert.equal((await changes({ limit: '100' })).body.data.length, Math.min(100, visibleTo(written, api.partner.userId, GRANTED).length))
      })

      it('start=latest: an empty page pointing at the head; the cursor then gives only what follows', async () => {
        const latest = await changes({ start: 'latest', brand_id: '2' })
        assert.deepEqual([latest.status, latest.body.data, latest.body.has_more], [200, [], false])
        const fresh = await recordSync(api.test.store.db, [importEvent(2, 5), importEvent(3, 6)], '2026-11-25T12:00:00Z')
        written.push(...fresh)
        const next = await changes({ brand_id: '2', cursor: latest.body.next_cursor })
        assert.deepEqual(next.body.data, [wire(fresh[0] as WrittenEvent)])
        const withCursor = await changes({ start: 'latest', cursor: latest.body.next_cursor, brand_id: '2' })
        assert.equal(withCursor.status, 422)
        assert.deepEqual((withCursor.body.detail as Array<{ loc: string[], type: string }>).map((item) => [item.loc, item.type]), [[['query', 'start'], 'start_with_cursor']])
        const badStart = await changes({ start: 'earliest' })
        assert.equal(badStart.status, 422)
        assert.deepEqual((badStart.body.detail as Array<{ loc: string[] }>).map((item) => item.loc), [['query', 'start']])
      })

      it('binds the cursor to brand_id and type (normalised), not to limit; an edited, foreign or garbage cursor is 422', async () => {
        const first = await changes({ brand_id: '2,1', type: 'posts.updated,analytics.updated', limit: '2' })
        const cursor = first.body.next_cursor
        // The same filters written otherwise, and another limit: the same query.
        const same = await changes({ brand_id: '01,2', type: 'analytics.updated,posts.updated,posts.updated', limit: '3', cursor })
        assert.equal(same.status, 200, JSON.stringify(same.body))
        const invalid = async (query: Query): Promise<void> => {
          const refused = await changes(query)
          assert.equal(refused.status, 422, JSON.stringify(query))
          assert.deepEqual((refused.body.detail as Array<{ loc: string[], type: string }>).map((item) => [item.loc, item.type]), [[['query', 'cursor'], 'cursor_invalid']])
        }
        await invalid({ cursor })
        await invalid({ brand_id: '1', type: 'posts.updated,analytics.updated', cursor })
        await invalid({ brand_id: '1,2', type: 'posts.updated', cursor })
        await invalid({ brand_id: '1,2', cursor })
        const [body = '', mac = ''] = cursor.split('.')
        const edited = Buffer.from(JSON.stringify([0, Number(JSON.parse(Buffer.from(body, 'base64url').toString())[1])])).toString('base64url')
        await invalid({ brand_id: '1,2', type: 'analytics.updated,posts.updated', cursor: `${edited}.${mac}` })
        // Another signature: its first character changed (a signature may already end in "AA").
        await invalid({ brand_id: '1,2', type: 'analytics.updated,posts.updated', cursor: `${body}.${mac.startsWith('A') ? 'B' : 'A'}${mac.slice(1)}` })
        await invalid({ cursor: 'garbage' })
        // Another partner's cursor, though its filters are the same.
        const otherPartner = await createPartner(api.test.store, { brandIds: GRANTED })
        const other = await api.get<FeedPageBody>('/changes', { start: 'latest' }, bearer(await loginToken(api.app, otherPartner)))
        await invalid({ cursor: other.body.next_cursor })
      })

      it('examines a bounded window per request: a stretch of events the partner cannot see gives short pages with has_more, never a skipped event', async () => {
        const latest = await changes({ start: 'latest' })
        const db = api.test.store.db
        // More than two windows of events of brand 5 (not granted), with visible events inside and after.
        const hidden = Array.from({ length: FEED_WINDOW + 500 }, (_, i) => importEvent(5, i))
        const inside = await recordSync(db, [...hidden, importEvent(1, 0), ...hidden], '2026-11-25T13:00:00Z')
        const last = await recordSync(db, [importEvent(2, 1)], '2026-11-25T13:00:01Z')
        written.push(...inside, ...last)
        const seen: unknown[] = []
        const sizes: number[] = []
        let cursor = latest.body.next_cursor
        for (;;) {
          const page = await changes({ cursor })
          seen.push(...page.body.data)
          sizes.push(page.body.data.length)
          cursor = page.body.next_cursor
          if (!page.body.has_more) break
          assert.ok(sizes.length < 10, 'the walk ends')
        }
        assert.deepEqual(seen, [...visibleTo(inside, api.partner.userId, GRANTED), ...last].map(wire))
        // 2 × (window + 500) + 2 events after the cursor: three windows, holding 0, 1 and 1 of the partner's events.
        assert.deepEqual(sizes, [0, 1, 1])
      })

      it('filters by every granted brand: every event but the access event of a brand outside the filter', async () => {
        const all = await walk({ brand_id: grantsFor(strategy, GRANTED).join(','), limit: '30' })
        const expected = visibleTo(written, api.partner.userId, GRANTED).filter((event) => GRANTED.includes(event.brandId))
        assert.deepEqual(all.flatMap((page) => page.body.data), expected.map(wire))
        assert.ok(visibleTo(written, api.partner.userId, GRANTED).some((event) => event.type === 'access.revoked' && event.brandId === 6), 'the left-out event exists')
      })
    })
  }
}
