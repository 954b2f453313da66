import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { ACCESS_CACHE_TTL_MS } from '../../src/services/access-cache.js'
import { grantBrands, revokeBrands } from '../../src/services/users/users.service.js'
import { buildTestApp, testClock } from '../helpers/app.js'
import { insertBrandsWithAccounts } from '../helpers/fixtures.js'
import { bearer, createPartner, loginToken } from '../helpers/partners.js'
import { createTestStore, DIALECTS, type TestStore } from '../helpers/stores.js'

/**
 * When grants apply to issued tokens (docs/api-reference.md "Access and its changes"): a brand
 * granted a moment ago answers at once when a request names it — its access.granted is already
 * in the change feed, and a partner following the feed reads it next — because a refusal is never
 * decided on cached grants; a revocation applies within the access cache's bound. The cache's
 * clock is the test's: nothing here waits.
 */
for (const dialect of DIALECTS) {
  describe(`grants and revocations on issued tokens (${dialect})`, () => {
    let test: TestStore
    let app: FastifyInstance
    const clock = testClock()

    before(async () => {
      test = await createTestStore(dialect)
      await insertBrandsWithAccounts(test.store.db, [{ brand_id: 1, accounts: [{ platform: 'fb', account_id: 10 }] }, { brand_id: 2, accounts: [{ platform: 'fb', account_id: 20 }] }])
      app = await buildTestApp(test.store, { RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_PER_HOUR: '0' }, { clock })
    })
    after(async () => {
      await app.close()
      await test.cleanup()
    })

    const analytics = async (token: string, query: string): Promise<number> =>
      (await app.inject({ method: 'GET', url: `/analytics/?${query}`, headers: bearer(token) })).statusCode

    it('a brand granted while the grants are cached answers at once by brand_id and by account_id', async () => {
      const partner = await createPartner(test.store, { brandIds: [1] })
      const token = await loginToken(app, partner)
      assert.equal(await analytics(token, 'brand_id=1'), 200)
      assert.equal(await analytics(token, 'brand_id=2'), 403)
      await grantBrands(test.store.db, partner.userId, [2])
      // Still inside the cache's lifetime: the cached grants say brand 1 only.
      assert.equal(await analytics(token, 'brand_id=2'), 200)
      assert.equal(await analytics(token, 'account_id=20&platform=fb'), 200)
    })

    it('a revoked brand is refused once the cached grants expire, not before they are read again', async () => {
      const partner = await createPartner(test.store, { brandIds: [1, 2] })
      const token = await loginToken(app, partner)
      assert.equal(await analytics(token, 'brand_id=2'), 200)
      await revokeBrands(test.store.db, partner.userId, [2])
      clock.advance(ACCESS_CACHE_TTL_MS + 1)
      assert.equal(await analytics(token, 'brand_id=2'), 403)
      assert.equal(await analytics(token, 'account_id=20&platform=fb'), 404)
    })
  })
}
