import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { FormatRegistry } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { isCalendarDate } from '../../src/domain/dates.js'
import { ChangesPage } from '../../src/http/schemas/changes.schemas.js'
import { buildResponseSerializer } from '../../src/http/serializer.js'
import { brandRange, insertBrandsWithAccounts } from '../helpers/fixtures.js'
import { openPartnerApi, type PartnerApi } from '../helpers/partner-api.js'
import { DIALECTS } from '../helpers/stores.js'
import { importEvent, recordSync, recordUnsynced, type FeedPageBody } from './feed-fixtures.js'

/**
 * A /changes page is written as text around events rendered once by renderChangeEvent
 * (src/http/routes/changes/changes-json.ts). Its text must be byte for byte what the ChangesPage
 * schema's serializer writes for the same page, and valid against that schema, for every type of
 * event, with names that need escaping, on both stores (whose timestamps come back differently).
 */

FormatRegistry.Set('date', isCalendarDate)
FormatRegistry.Set('date-time', (value) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/.test(value))

for (const dialect of DIALECTS) {
  describe(`/changes pages written as text (${dialect})`, () => {
    let api: PartnerApi
    const serialize = buildResponseSerializer({})({ schema: ChangesPage }) as (body: unknown) => string

    before(async () => {
      api = await openPartnerApi(dialect, { seed: async (test) => { await insertBrandsWithAccounts(test.store.db, brandRange(1, 2, 1)) }, brandIds: [1, 2] })
      const db = api.test.store.db
      await recordSync(db, Array.from({ length: 8 }, (_, i) => importEvent(1 + (i % 2), i)), '2026-11-25T10:00:00Z')
      await recordSync(db, [
        { type: 'brand.updated', data: { brand_id: 2, brand_name: 'Quote " backslash \\ tab \t newline \n emoji 🎉 \u2028', change: 'created' } },
        { type: 'account.updated', data: { brand_id: 1, platform: 'yt', account_id: 77, account_name: '</script><script>', change: 'moved_out' } },
        { type: 'analytics.updated', data: { brand_id: 1, accounts: [] } },
      ], '2026-11-25T10:00:01Z')
      await recordUnsynced(db, [
        { type: 'access.granted', userId: api.partner.userId, data: { brand_id: 2 } },
        { type: 'access.revoked', userId: api.partner.userId, data: { brand_id: 9 } },
      ], '2026-11-25T10:00:02Z')
    })
    after(async () => { await api.close() })

    it('writes every page exactly as the ChangesPage serializer would, valid against the schema', async () => {
      let cursor: string | undefined
      let events = 0
      const types = new Set<string>()
      for (let pages = 0; pages < 20; pages++) {
        const response = await api.app.inject({ method: 'GET', url: '/changes', query: { limit: '4', ...(cursor === undefined ? {} : { cursor }) }, headers: api.auth })
        assert.equal(response.statusCode, 200, response.body)
        assert.equal(response.headers['content-type'], 'application/json; charset=utf-8')
        const body = JSON.parse(response.body) as FeedPageBody
        assert.equal(response.body, serialize(body))
        assert.deepEqual([...Value.Errors(ChangesPage, body)].map((error) => `${error.path}: ${error.message}`), [])
        events += body.data.length
        for (const event of body.data) types.add(event.type)
        if (!body.has_more) break
        cursor = body.next_cursor
      }
      assert.equal(events, 13)
      assert.deepEqual([...types].sort(), ['access.granted', 'access.revoked', 'account.updated', 'analytics.updated', 'brand.updated', 'posts.updated'])
      // The empty page (start=latest) too.
      const latest = await api.app.inject({ method: 'GET', url: '/changes', query: { start: 'latest' }, headers: api.auth })
      assert.equal(latest.body, serialize(JSON.parse(latest.body)))
    })
  })
}
