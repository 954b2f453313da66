import { describe, it, before, after } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance } from 'fastify'
import { DIALECTS, type TestStore } from '../helpers/stores.js'

import { bearer, createPartner, loginToken } from '../helpers/partners.js'
import { insertPosts, postRow, type Client, openPostsWorld, closePostsWorld } from './posts-fixtures.js'

const ACCOUNT_DETAIL = { detail: 'account_id requires exactly one platform to be specified' }

for (const dialect of DIALECTS) {
  describe(`GET /posts errors (${dialect})`, () => {
    let test: TestStore
    let app: FastifyInstance
    let client: Client

    before(async () => { ({ test, app, client } = await openPostsWorld(dialect)) })
    after(async () => { await closePostsWorld({ test, app, client }) })

    it('answers 401 without a token, on both paths', async () => {
      for (const url of ['/posts', '/posts/']) {
        const response = await app.inject({ method: 'GET', url })
        assert.equal(response.statusCode, 401)
        assert.equal(response.json().error_code, 'INVALID_CREDENTIALS')
      }
    })

    const BAD: Array<[string, string, string]> = [
      ['post_type', 'video,gif', 'enum'],
      ['post_type', 'video,', 'enum'],
      ['order_by', 'likes', 'string_pattern_mismatch'],
      ['order_by', 'Views', 'string_pattern_mismatch'],
      ['order', 'DESC', 'string_pattern_mismatch'],
      ['limit', '0', 'greater_than_equal'],
      ['limit', '51', 'less_than_equal'],
      ['limit', '2.5', 'int_parsing'],
      ['limit', 'ten', 'int_parsing'],
      ['topics', 'maybe', 'bool_parsing'],
      ['category', '2', 'bool_parsing'],
      ['since', '2026-02-30', 'date_parsing'],
      ['until', '21/11/2026', 'date_parsing'],
      ['brand_id', '1,,2', 'int_parsing'],
      ['account_id', '-3', 'int_parsing'],
      ['platform', 'myspace', 'enum'],
      ['cursor', 'not-a-cursor', 'cursor_invalid'],
    ]
    for (const [name, value, type] of BAD) {
      it(`answers 422 for ${name}=${value}, naming only that parameter`, async () => {
        const { status, body } = await client.get({ [name]: value })
        assert.equal(status, 422)
        assert.equal(body.error_code, 'VALIDATION_ERROR')
        assert.equal(body.status_code, 422)
        assert.equal(body.status, 'error')
        assert.equal(body.detail.length, 1)
        assert.deepEqual(body.detail[0].loc, ['query', name])
        assert.equal(body.detail[0].type, type)
        assert.equal(typeof body.detail[0].msg, 'string')
        assert.equal(typeof body.detail[0].ctx, 'object')
      })
    }

    it('reports the limit bound in ctx', async () => {
      const { body } = await client.get({ limit: '100' })
      assert.deepEqual(body.detail[0].ctx, { limit_value: 50 })
    })

    it('lists every offending parameter in one 422, one item each', async () => {
      const { status, body } = await client.get({ order_by: 'x', order: 'up', limit: '0', post_type: 'gif', topics: 'x', since: '2026-13-01' })
      assert.equal(status, 422)
      assert.deepEqual(body.detail.map((item: { loc: string[] }) => item.loc[1]).sort(), ['limit', 'order', 'order_by', 'post_type', 'since', 'topics'])
    })

    it('answers 422 on since for since > until and for a period over 1096 days', async () => {
      for (const query of [{ since: '2026-11-08', until: '2026-11-07' }, { since: '2023-11-07', until: '2026-11-07' }]) {
        const { status, body } = await client.get(query)
        assert.equal(status, 422)
        assert.deepEqual(body.detail.map((item: { loc: string[] }) => item.loc), [['query', 'since']])
      }
    })

    it('ignores unknown parameters, keeps the last of repeated ones, treats empty as absent', async () => {
      // Twelve posts of brand 1 on 2026-10-10, one an hour: a00 … a11.
      await insertPosts(test.store.db, Array.from({ length: 12 }, (_, k) => postRow('tk', `a${String(k).padStart(2, '0')}`, 12, `2026-10-10T${String(k).padStart(2, '0')}:00:00Z`)))
      const headers = bearer(await loginToken(app, await createPartner(test.store, { brandIds: [1] })))
      const response = await app.inject({ method: 'GET', url: '/posts?since=2026-10-10&until=2026-10-10&order=up&order=asc&limit=&whatever=1', headers })
      assert.equal(response.statusCode, 200)
      const body = response.json()
      // order=asc (the last one) and the default limit of 10 (the empty one is absent).
      assert.deepEqual(body.data.map((record: { id: string }) => record.id), ['a00', 'a01', 'a02', 'a03', 'a04', 'a05', 'a06', 'a07', 'a08', 'a09'])
      assert.equal(typeof body.next_cursor, 'string')
      const reversed = await app.inject({ method: 'GET', url: '/posts?since=2026-10-10&until=2026-10-10&order=asc&order=desc&limit=3&limit=', headers })
      assert.deepEqual(reversed.json().data.map((record: { id: string }) => record.id), ['a11', 'a10', 'a09', 'a08', 'a07', 'a06', 'a05', 'a04', 'a03', 'a02'])
    })

    it('answers 400 with the bare detail when account_id has no or several platforms, before 403', async () => {
      const queries: Array<Record<string, string>> = [{ account_id: '10' }, { account_id: '10', platform: 'fb,ig' }, { account_id: '10', brand_id: '3' }]
      for (const query of queries) {
        const { status, body } = await client.get(query)
        assert.equal(status, 400)
        assert.deepEqual(body, ACCOUNT_DETAIL)
      }
    })

    it('answers 403 for a brand not granted or not existing, 422 coming first', async () => {
      for (const brand of ['3', '1,3', '999']) {
        const { status, body } = await client.get({ brand_id: brand })
        assert.equal(status, 403)
        assert.equal(body.error_code, 'FORBIDDEN')
      }
      const invalid = await client.get({ brand_id: '3', limit: '0' })
      assert.equal(invalid.status, 422)
    })

    it('answers 404 for an account not on that platform, in a brand not granted, or outside the brand_id given', async () => {
      const queries: Array<Record<string, string>> = [{ account_id: '11', platform: 'fb' }, { account_id: '30', platform: 'fb' }, { account_id: '10', platform: 'fb', brand_id: '2' }]
      for (const query of queries) {
        const { status, body } = await client.get(query)
        assert.equal(status, 404, JSON.stringify(query))
        assert.equal(body.error_code, 'NOT_FOUND')
      }
    })
  })
}
