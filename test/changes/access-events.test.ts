import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { AppError } from '../../src/domain/errors.js'
import { wallClock } from '../helpers/app.js'
import { brandRange, insertBrandsWithAccounts } from '../helpers/fixtures.js'
import { openPartnerApi, type ApiResponse, type PartnerApi, type Query } from '../helpers/partner-api.js'
import { bearer, createPartner, loginToken } from '../helpers/partners.js'
import { DIALECTS } from '../helpers/stores.js'
import { EXTRA_BRANDS, seedExtraBrands, grantsFor, recordSyncs, STRATEGIES, wire, type WrittenEvent, type FeedPageBody } from './feed-fixtures.js'

/**
 * `users grant` / `users revoke` tell the user through its feed (access.granted, access.revoked,
 * in the grant's own transaction, only for grants that changed), and the feed shows a partner only
 * the brands it can see at the time of the request: after a revocation none of that brand's
 * events, old ones included — at once, not after the access cache's 2 s.
 */

const NOW = '2026-11-25T09:30:00Z'
/** The brands under test among a user's grants (without the brands granted only to choose the strategy). */
const tested = (brandIds: number[]): number[] => brandIds.filter((id) => !EXTRA_BRANDS.includes(id))

for (const dialect of DIALECTS) {
  for (const strategy of STRATEGIES) {
    describe(`access events and isolation (${dialect}, ${strategy})`, () => {
      let api: PartnerApi
      let imported: WrittenEvent[]
      const clock = wallClock(NOW)
      const feed = async (query: Query = {}, headers?: Record<string, string>): Promise<ApiResponse<FeedPageBody>> => await api.get<FeedPageBody>('/changes', { limit: '100', ...query }, headers)
      const accessEvents = async (): Promise<Array<{ type: string, userId: string | null, brandId: number, createdAt: string }>> => {
        const rows = await api.test.store.db.selectFrom('change_events').select(['type', 'user_id', 'brand_id', 'created_at', 'sync_id']).where('type', 'like', 'access.%').orderBy('event_id').execute()
        return rows.map((row) => ({ type: row.type, userId: row.user_id, brandId: Number(row.brand_id), createdAt: new Date(row.created_at).toISOString().replace('.000', '') }))
      }

      before(async () => {
        api = await openPartnerApi(dialect, {
          seed: async (test) => { await insertBrandsWithAccounts(test.store.db, brandRange(1, 5, 1)); await seedExtraBrands(test.store.db) },
          brandIds: grantsFor(strategy, [1, 2], 5),
          now: clock.now,
        })
        imported = await recordSyncs(api.test.store.db, { count: 4, perSync: 5, brandIds: [1, 2, 3, 4, 5], createdAt: '2026-11-20T00:00:00Z' })
      })
      after(async () => { await api.close() })

      it('creating a user with brands emits nothing; grant emits one access.granted per brand newly granted, at the service clock', async () => {
        assert.deepEqual(await accessEvents(), [])
        const users = api.app.services.users
        assert.deepEqual(tested((await users.grant(api.partner.userId, [3])).brand_ids), [1, 2, 3])
        assert.deepEqual(tested((await users.grant(api.partner.userId, [3])).brand_ids), [1, 2, 3])
        assert.deepEqual(tested((await users.grant(api.partner.userId, [2, 4, 3])).brand_ids), [1, 2, 3, 4])
        assert.deepEqual(await accessEvents(), [
          { type: 'access.granted', userId: api.partner.userId, brandId: 3, createdAt: NOW },
          { type: 'access.granted', userId: api.partner.userId, brandId: 4, createdAt: NOW },
        ])
      })

      it('revoke emits one access.revoked per brand that was granted; revoking one not granted emits nothing', async () => {
        clock.set('2026-11-25T09:31:00Z')
        const users = api.app.services.users
        assert.deepEqual(tested((await users.revoke(api.partner.userId, [5])).brand_ids), [1, 2, 3, 4])
        assert.deepEqual(tested((await users.revoke(api.partner.userId, [4, 5])).brand_ids), [1, 2, 3])
        const events = await accessEvents()
        assert.equal(events.length, 3)
        assert.deepEqual(events[2], { type: 'access.revoked', userId: api.partner.userId, brandId: 4, createdAt: '2026-11-25T09:31:00Z' })
      })

      it('a grant refused (unknown brand) or a user unknown leaves no event: the events share the grant\'s transaction', async () => {
        const users = api.app.services.users
        await assert.rejects(users.grant(api.partner.userId, [5, 99]), (error: unknown) => error instanceof AppError && error.code === 'NOT_FOUND')
        await assert.rejects(users.revoke('usr_nobody', [1]), (error: unknown) => error instanceof AppError && error.code === 'NOT_FOUND')
        assert.equal((await accessEvents()).length, 3)
        assert.deepEqual(tested((await users.list()).find((user) => user.user_id === api.partner.userId)?.brand_ids ?? []), [1, 2, 3])
      })

      it('a partner revoked from a brand sees none of its events at once, old ones included, but its own access.revoked', async () => {
        const before = await feed()
        assert.ok(before.body.data.some((event) => event.data.brand_id === 1 && event.type !== 'access.revoked'), 'brand 1 events are seen while granted')
        await api.app.services.users.revoke(api.partner.userId, [1])
        // No waiting: the feed reads the grants in the same statement as the events.
        const afterRevoke = await feed()
        const revokedEvent = afterRevoke.body.data.at(-1)
        assert.deepEqual({ type: revokedEvent?.type, data: revokedEvent?.data, sync_id: revokedEvent?.sync_id }, { type: 'access.revoked', data: { brand_id: 1 }, sync_id: null })
        const expected = imported.filter((event) => [2, 3].includes(event.brandId)).map(wire)
        assert.deepEqual(afterRevoke.body.data.filter((event) => !event.type.startsWith('access.')), expected)
        assert.deepEqual(afterRevoke.body.data.filter((event) => event.type.startsWith('access.')).map((event) => [event.type, event.data.brand_id]), [
          ['access.granted', 3], ['access.granted', 4], ['access.revoked', 4], ['access.revoked', 1],
        ])
        // A cursor taken while brand 1 was granted does not bring its events back either.
        const fromOld = await feed({ cursor: (await feed({ limit: '1' })).body.next_cursor })
        assert.ok(!fromOld.body.data.some((event) => event.data.brand_id === 1 && !event.type.startsWith('access.')))
        // Brand 1 cannot be asked for any more.
        const filtered = await feed({ brand_id: '1' })
        assert.deepEqual([filtered.status, filtered.body.error_code], [403, 'FORBIDDEN'])
      })

      it('another partner sees its own brands\' events and none of this partner\'s access events', async () => {
        const other = await createPartner(api.test.store, { brandIds: [1] })
        const token = bearer(await loginToken(api.app, other))
        const page = await feed({}, token)
        assert.deepEqual(page.body.data, imported.filter((event) => event.brandId === 1).map(wire))
      })

      it('a grant shows the brand\'s events from then on, and the access.granted says to backfill', async () => {
        const latest = await feed({ start: 'latest' })
        await api.app.services.users.grant(api.partner.userId, [1])
        const fresh = await recordSyncs(api.test.store.db, { count: 1, perSync: 2, brandIds: [1, 5], createdAt: '2026-11-25T10:00:00Z' })
        const page = await feed({ cursor: latest.body.next_cursor })
        assert.deepEqual(page.body.data.map((event) => [event.type, event.data.brand_id]), [['access.granted', 1], [fresh[0]?.type, 1]])
      })

      it('two grants of the same brand at once emit one access.granted, and two revocations one access.revoked', async () => {
        const users = api.app.services.users
        const before = (await accessEvents()).length
        await Promise.all([users.grant(api.partner.userId, [5]), users.grant(api.partner.userId, [5])])
        await Promise.all([users.revoke(api.partner.userId, [5]), users.revoke(api.partner.userId, [5])])
        assert.deepEqual((await accessEvents()).slice(before).map((event) => [event.type, event.brandId]), [['access.granted', 5], ['access.revoked', 5]])
      })
    })
  }
}
