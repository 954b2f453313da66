import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { ACCESS_CACHE_TTL_MS } from '../../src/services/access-cache.js'
import { createCredential, graceEndOf, revokeCredential, rotateCredentials } from '../../src/services/users/users.service.js'
import { buildTestApp, testClock } from '../helpers/app.js'
import { insertBrandsWithAccounts } from '../helpers/fixtures.js'
import { bearer, createPartner, loginToken, type TestPartner } from '../helpers/partners.js'
import { createTestStore, DIALECTS, type TestStore } from '../helpers/stores.js'

/**
 * Two live key pairs per user, each login and token tied to its own pair: revoking one pair, or
 * the end of a rotation's grace period, stops that pair's logins at once and its tokens within
 * the access-cache bound, and leaves the other pair working. Time is moved by the test clock of
 * the access cache and by writing the pair's end into the past, never by sleeping.
 */
for (const dialect of DIALECTS) {
  describe(`key pairs: two live, each with its own tokens (${dialect})`, () => {
    let test: TestStore
    let app: FastifyInstance
    const clock = testClock()

    before(async () => {
      test = await createTestStore(dialect)
      await insertBrandsWithAccounts(test.store.db, [{ brand_id: 1 }])
      app = await buildTestApp(test.store, { RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_PER_HOUR: '0' }, { clock })
    })
    after(async () => {
      await app.close()
      await test.cleanup()
    })

    const me = async (token: string): Promise<{ status: number, code?: string }> => {
      const response = await app.inject({ method: 'GET', url: '/me', headers: bearer(token) })
      return { status: response.statusCode, code: (response.json() as { error_code?: string }).error_code }
    }
    const login = async (pair: Pick<TestPartner, 'clientKey' | 'secretKey'>): Promise<number> =>
      (await app.inject({ method: 'POST', url: '/auth/login', payload: { api_client_key: pair.clientKey, api_secret_key: pair.secretKey } })).statusCode

    it('logs in with either pair; revoking one stops its logins now and its tokens within the bound, not the other\'s', async () => {
      const first = await createPartner(test.store, { brandIds: [1] })
      const issued = await createCredential(test.store.db, first.userId)
      const second = { clientKey: issued.api_client_key, secretKey: issued.api_secret_key }
      const firstToken = await loginToken(app, first)
      const secondToken = await loginToken(app, second)
      assert.deepEqual(await me(firstToken), { status: 200, code: undefined })
      assert.deepEqual(await me(secondToken), { status: 200, code: undefined })

      await revokeCredential(test.store.db, first.clientKey)
      assert.equal(await login(first), 401)
      assert.equal(await login(second), 200)
      clock.advance(ACCESS_CACHE_TTL_MS + 1)
      assert.deepEqual(await me(firstToken), { status: 401, code: 'TOKEN_INVALID' })
      assert.deepEqual(await me(secondToken), { status: 200, code: undefined })
    })

    it('rotate with a grace period: the old pair and its tokens work until the grace ends, then stop', async () => {
      const partner = await createPartner(test.store, { brandIds: [1] })
      const oldToken = await loginToken(app, partner)
      const rotated = await rotateCredentials(test.store.db, partner.userId, 3600)
      const fresh = { clientKey: rotated.api_client_key, secretKey: rotated.api_secret_key }
      clock.advance(ACCESS_CACHE_TTL_MS + 1)
      assert.equal(await login(partner), 200)
      assert.deepEqual(await me(oldToken), { status: 200, code: undefined })
      const newToken = await loginToken(app, fresh)

      // The hour has passed: the grace period's end is now behind us.
      const ended = new Date(Date.now() - 1000).toISOString().slice(0, 19) + 'Z'
      await test.store.db.updateTable('credentials').set({ revoked_at: ended }).where('client_key', '=', partner.clientKey).execute()
      assert.equal(await login(partner), 401)
      clock.advance(ACCESS_CACHE_TTL_MS + 1)
      assert.deepEqual(await me(oldToken), { status: 401, code: 'TOKEN_INVALID' })
      assert.deepEqual(await me(newToken), { status: 200, code: undefined })
    })

    it('rotate with a grace period: its end is rounded up to the second, so the old pair works the whole period', () => {
      assert.equal(graceEndOf(Date.parse('2026-11-28T10:00:00.900Z'), 12), '2026-11-28T10:00:13Z')
      assert.equal(graceEndOf(Date.parse('2026-11-28T10:00:00.001Z'), 12), '2026-11-28T10:00:13Z')
      assert.equal(graceEndOf(Date.parse('2026-11-28T10:00:00.000Z'), 12), '2026-11-28T10:00:12Z')
    })

    it('rotate with a grace period: the stored end is at least the period away', async () => {
      const partner = await createPartner(test.store, { brandIds: [1] })
      const asked = Date.now()
      await rotateCredentials(test.store.db, partner.userId, 12)
      const row = await test.store.db.selectFrom('credentials').select('revoked_at').where('client_key', '=', partner.clientKey).executeTakeFirstOrThrow()
      const end = new Date(row.revoked_at as unknown as string).getTime()
      assert.ok(end - asked >= 12_000, `ends ${new Date(end).toISOString()}, asked at ${new Date(asked).toISOString()}`)
    })

    it('rotate without a grace period: the old pair stops at once at login, its tokens within the bound', async () => {
      const partner = await createPartner(test.store, { brandIds: [1] })
      const oldToken = await loginToken(app, partner)
      await rotateCredentials(test.store.db, partner.userId)
      assert.equal(await login(partner), 401)
      clock.advance(ACCESS_CACHE_TTL_MS + 1)
      assert.deepEqual(await me(oldToken), { status: 401, code: 'TOKEN_INVALID' })
    })

    it('revoking a pair in its grace period ends it now', async () => {
      const partner = await createPartner(test.store, { brandIds: [1] })
      const oldToken = await loginToken(app, partner)
      await rotateCredentials(test.store.db, partner.userId, 86_400)
      assert.equal(await login(partner), 200)
      await revokeCredential(test.store.db, partner.clientKey)
      assert.equal(await login(partner), 401)
      clock.advance(ACCESS_CACHE_TTL_MS + 1)
      assert.deepEqual(await me(oldToken), { status: 401, code: 'TOKEN_INVALID' })
    })
  })
}
