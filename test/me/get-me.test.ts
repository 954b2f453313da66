import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance } from 'fastify'
import { buildTestApp } from '../helpers/app.js'
import { brandRange, insertBrandsWithAccounts } from '../helpers/fixtures.js'
import { bearer, createPartner, loginToken } from '../helpers/partners.js'
import { createTestStore, DIALECTS, type TestStore } from '../helpers/stores.js'
import { grantBrands, revokeBrands } from '../../src/services/users/users.service.js'
import type { MeResponse } from '../../src/http/schemas/me.schemas.js'

/** GET /me (docs/api-reference.md "GET /me"): profile, brand pages, cursors, limits, access. */

const LISTS = ['fb_accounts', 'ig_accounts', 'tk_accounts', 'yt_accounts', 'th_accounts', 'sc_accounts', 'li_accounts', 'da_accounts', 'pi_accounts']

for (const dialect of DIALECTS) {
  describe(`GET /me (${dialect})`, () => {
    let test: TestStore
    let app: FastifyInstance

    before(async () => {
      test = await createTestStore(dialect)
      // Brands 1..200 with two accounts each; users get various subsets, never all of them.
      await insertBrandsWithAccounts(test.store.db, brandRange(1, 200, 2))
      // Brand 500 exercises sorting and nulls: accounts inserted out of order, one without network_id.
      await insertBrandsWithAccounts(test.store.db, [{
        brand_id: 500,
        brand_name: 'Sorted Brand',
        accounts: [
          { platform: 'ig', account_id: 30, account_name: 'IG thirty' },
          { platform: 'fb', account_id: 20, account_name: 'FB twenty', network_id: null },
          { platform: 'fb', account_id: 3, account_name: 'FB three', network_id: '333' },
          { platform: 'pi', account_id: 7, account_name: 'PI seven' },
          { platform: 'ig', account_id: 4, account_name: 'IG four' },
        ],
      }])
      app = await buildTestApp(test.store, { RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_PER_HOUR: '0' })
    })
    after(async () => {
      await app.close()
      await test.cleanup()
    })

    async function getMe (token: string, query = '') {
      return await app.inject({ method: 'GET', url: `/me${query}`, headers: bearer(token) })
    }

    /** Follows next_cursor to the end; returns every page. */
    async function walk (token: string, limit?: number): Promise<MeResponse[]> {
      const pages: MeResponse[] = []
      let cursor: string | null = null
      do {
        const params = new URLSearchParams()
        if (limit !== undefined) params.set('limit', String(limit))
        if (cursor !== null) params.set('cursor', cursor)
        const response = await getMe(token, `?${params.toString()}`)
        assert.equal(response.statusCode, 200, response.body)
        const page = response.json() as MeResponse
        pages.push(page)
        cursor = page.next_cursor
        assert.ok(pages.length <= 200, 'paging does not end')
      } while (cursor !== null)
      return pages
    }

    for (const count of [0, 1, 20, 21, 150]) {
      it(`walks every page for a user with ${count} brands`, async () => {
        // Start at brand 30 so the user's brands are not simply the first ones in the table.
        const granted = Array.from({ length: count }, (_, i) => 30 + i).filter((id) => id <= 200)
        const partner = await createPartner(test.store, { brandIds: granted, name: `User with ${count}` })
        const token = await loginToken(app, partner)

        const pages = await walk(token)
        const expectedPages = Math.max(1, Math.ceil(count / 20))
        assert.equal(pages.length, expectedPages)
        pages.forEach((page, i) => {
          assert.equal(page.name, `User with ${count}`)
          assert.equal(page.brands.length, i < expectedPages - 1 ? 20 : count - 20 * (expectedPages - 1))
          assert.equal(page.next_cursor === null, i === expectedPages - 1)
        })
        const seen = pages.flatMap((page) => page.brands.map((brand) => brand.brand_id))
        assert.deepEqual(seen, granted)

        // With limit=100 the 150-brand user needs two pages, 100 + 50.
        const big = await walk(token, 100)
        assert.deepEqual(big.map((page) => page.brands.length), count === 0 ? [0] : count <= 100 ? [count] : [100, count - 100])
        assert.deepEqual(big.flatMap((page) => page.brands.map((brand) => brand.brand_id)), granted)
      })
    }

    it('returns each brand with its name and all nine account lists, sorted by account_id', async () => {
      const partner = await createPartner(test.store, { brandIds: [500, 2] })
      const response = await getMe(await loginToken(app, partner))
      const body = response.json() as MeResponse
      assert.deepEqual(Object.keys(body).sort(), ['brands', 'name', 'next_cursor'])
      assert.deepEqual(body.brands.map((brand) => brand.brand_id), [2, 500])
      const sorted = body.brands[1] as Record<string, unknown>
      assert.deepEqual(Object.keys(sorted).sort(), ['brand_id', 'brand_name', ...LISTS].sort())
      assert.equal(sorted.brand_name, 'Sorted Brand')
      assert.deepEqual(sorted.fb_accounts, [
        { account_id: 3, account_name: 'FB three', network_id: '333' },
        { account_id: 20, account_name: 'FB twenty', network_id: null },
      ])
      assert.deepEqual(sorted.ig_accounts, [
        { account_id: 4, account_name: 'IG four', network_id: 'net-ig-4' },
        { account_id: 30, account_name: 'IG thirty', network_id: 'net-ig-30' },
      ])
      assert.deepEqual(sorted.pi_accounts, [{ account_id: 7, account_name: 'PI seven', network_id: 'net-pi-7' }])
      for (const list of ['tk_accounts', 'yt_accounts', 'th_accounts', 'sc_accounts', 'li_accounts', 'da_accounts']) {
        assert.deepEqual(sorted[list], [], list)
      }
      // brandRange gives brand 2 an fb and an ig account.
      const two = body.brands[0] as Record<string, unknown>
      assert.deepEqual(two.fb_accounts, [{ account_id: 2000, account_name: 'Account fb 2000', network_id: 'net-fb-2000' }])
      assert.deepEqual(two.ig_accounts, [{ account_id: 2001, account_name: 'Account ig 2001', network_id: 'net-ig-2001' }])
    })

    it('reads the current grants: a grant or revocation shows on the next request', async () => {
      const partner = await createPartner(test.store, { brandIds: [5, 6] })
      const token = await loginToken(app, partner)
      const ids = async () => ((await getMe(token)).json() as MeResponse).brands.map((brand) => brand.brand_id)
      assert.deepEqual(await ids(), [5, 6])
      await revokeBrands(test.store.db, partner.userId, [5])
      assert.deepEqual(await ids(), [6])
      await grantBrands(test.store.db, partner.userId, [9])
      assert.deepEqual(await ids(), [6, 9])
    })

    it('answers 422 for a limit that is not an integer from 1 to 100', async () => {
      const token = await loginToken(app, await createPartner(test.store, { brandIds: [1] }))
      for (const [value, type] of [['0', 'greater_than_equal'], ['101', 'less_than_equal'], ['-1', 'greater_than_equal'], ['abc', 'int_parsing'], ['1.5', 'int_parsing'], ['0x10', 'int_parsing'], ['0b11', 'int_parsing'], ['1e2', 'int_parsing'], ['1.0', 'int_parsing']]) {
        const response = await getMe(token, `?limit=${value}`)
        assert.equal(response.statusCode, 422, value)
        const body = response.json()
        assert.equal(body.error_code, 'VALIDATION_ERROR')
        assert.equal(body.detail.length, 1)
        assert.deepEqual(body.detail[0].loc, ['query', 'limit'])
        assert.equal(body.detail[0].type, type, value)
      }
      assert.equal((await getMe(token, '?limit=1')).statusCode, 200)
      assert.equal((await getMe(token, '?limit=100')).statusCode, 200)
      // An empty value is an absent parameter (docs/api-reference.md "Basics"): the default applies.
      assert.equal((await getMe(token, '?limit=')).statusCode, 200)
    })

    it('answers 422 loc ["query","cursor"] for a garbage, edited or another user\'s cursor', async () => {
      const alice = await createPartner(test.store, { brandIds: [1, 2, 3] })
      const bob = await createPartner(test.store, { brandIds: [1, 2, 3] })
      const aliceToken = await loginToken(app, alice)
      const bobToken = await loginToken(app, bob)
      const cursor = ((await getMe(aliceToken, '?limit=1')).json() as MeResponse).next_cursor
      assert.ok(cursor !== null)
      const [body = '', mac = ''] = cursor.split('.')
      const forged = Buffer.from(JSON.stringify({ after: 0 })).toString('base64url') + '.' + mac
      const flipped = body + '.' + (mac[0] === 'A' ? 'B' : 'A') + mac.slice(1)
      for (const [name, token, bad] of [['garbage', aliceToken, 'garbage'], ['forged', aliceToken, forged], ['flipped', aliceToken, flipped], ['other user', bobToken, cursor]] as const) {
        const response = await getMe(token, `?cursor=${encodeURIComponent(bad)}`)
        assert.equal(response.statusCode, 422, name)
        const detail = response.json().detail
        assert.deepEqual(detail.map((item: { loc: string[] }) => item.loc), [['query', 'cursor']], name)
      }
      // The genuine cursor works for its owner, with another limit too (cursors are not bound to limit).
      const next = (await getMe(aliceToken, `?limit=5&cursor=${encodeURIComponent(cursor)}`)).json() as MeResponse
      assert.deepEqual(next.brands.map((brand) => brand.brand_id), [2, 3])
      assert.equal(next.next_cursor, null)
    })
  })
}
