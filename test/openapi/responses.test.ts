import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'
import { generateDataset, insertDatasetAndReadModel } from '../helpers/analytics-fixtures.js'
import { buildTestApp } from '../helpers/app.js'
import { bearer, createPartner, loginToken, type TestPartner } from '../helpers/partners.js'
import { createTestStore, DIALECTS, type TestStore } from '../helpers/stores.js'
import { insertPosts, postRow } from '../posts/posts-fixtures.js'
import { importEvent, recordSync, recordUnsynced } from '../changes/feed-fixtures.js'
import { fetchDocument, ResponseValidator } from './document.js'

/**
 * Real responses (app.inject on a seeded store) validate against the document's own response
 * schemas and carry the headers it promises: the document describes what the service sends,
 * not what someone hoped it sends.
 */

for (const dialect of DIALECTS) {
  describe(`real responses match /openapi.json (${dialect})`, () => {
    let testStore: TestStore
    let app: FastifyInstance
    let validator: ResponseValidator
    let partner: TestPartner
    let token: string

    before(async () => {
      testStore = await createTestStore(dialect)
      await insertDatasetAndReadModel(testStore.store, generateDataset({ seed: 6, start: '2026-01-01', days: 40 }))
      app = await buildTestApp(testStore.store)
      validator = new ResponseValidator(await fetchDocument(app))
      await insertPosts(testStore.store.db, [
        postRow('fb', 'p1', 100, '2026-01-03T10:00:00Z', { views: 10, title: 'Launch' }),
        postRow('ig', 'p2', 100, '2026-01-04T11:00:00Z'),
        postRow('fb', 'p3', 100, '2026-01-05T12:00:00Z', { views: 30 }),
      ])
      partner = await createPartner(testStore.store, { brandIds: [1, 2] })
      token = await loginToken(app, partner)
    })
    after(async () => {
      await app.close()
      await testStore.cleanup()
    })

    /** Sends the request, checks status, body schema and every documented header; returns the response. */
    async function expectDocumented (method: 'GET' | 'POST', path: string, status: number, options: Omit<InjectOptions, 'method' | 'url'> = {}, target: FastifyInstance = app): Promise<LightMyRequestResponse> {
      return assertDocumented(method, path, status, await target.inject({ method, url: path, ...options }))
    }

    /** Checks a response's status, body schema and every documented header. */
    function assertDocumented (method: 'GET' | 'POST', path: string, status: number, response: LightMyRequestResponse): LightMyRequestResponse {
      assert.equal(response.statusCode, status, `${method} ${path}: ${response.body}`)
      const documentedPath = path.split('?')[0] ?? path
      assert.deepEqual(validator.bodyErrors(method, documentedPath, status, response.json()), [], `${method} ${path} ${status} body`)
      // Rate limits are on in this app, so every optional header must be there too (except the
      // lockout's Retry-After on a login 401, which only TOO_MANY_ATTEMPTS sends).
      const problems = validator.headerProblems(method, documentedPath, response, { includeOptional: status !== 401 || method === 'GET' })
      assert.deepEqual(problems, [], `${method} ${path} ${status} headers`)
      return response
    }

    const auth = () => ({ headers: bearer(token) })

    it('POST /auth/login: 200, 401 (wrong pair, malformed key), 422', async () => {
      await expectDocumented('POST', '/auth/login', 200, { payload: { api_client_key: partner.clientKey, api_secret_key: partner.secretKey } })
      const wrongSecret = 'pas_' + 'A'.repeat(43)
      const wrong = await expectDocumented('POST', '/auth/login', 401, { payload: { api_client_key: partner.clientKey, api_secret_key: wrongSecret } })
      assert.equal(wrong.json().error_code, 'INVALID_CREDENTIALS')
      await expectDocumented('POST', '/auth/login', 401, { payload: { api_client_key: 'nope', api_secret_key: wrongSecret } })
      const invalid = await expectDocumented('POST', '/auth/login', 422, { payload: { api_client_key: partner.clientKey } })
      assert.deepEqual(invalid.json().detail[0].loc, ['body', 'api_secret_key'])
    })

    it('GET /me: 200 (two pages), 401 (no token, bad token), 422', async () => {
      const first = await expectDocumented('GET', '/me?limit=1', 200, auth())
      assert.equal(first.json().brands.length, 1)
      await expectDocumented('GET', `/me?limit=1&cursor=${encodeURIComponent(first.json().next_cursor)}`, 200, auth())
      await expectDocumented('GET', '/me', 401)
      await expectDocumented('GET', '/me', 401, { headers: bearer('not.a.jwt') })
      await expectDocumented('GET', '/me?limit=0', 422, auth())
    })

    it('GET /analytics/: 200 daily (with next_cursor), monthly, agg, split and by account', async () => {
      const daily = await expectDocumented('GET', '/analytics/?type=daily&since=2026-01-01&until=2026-02-09', 200, auth())
      assert.equal(daily.json().total, 20)
      assert.equal(typeof daily.json().next_cursor, 'string')
      await expectDocumented('GET', '/analytics/?type=monthly&since=2026-01-01&until=2026-02-09&platform=fb,ig', 200, auth())
      const agg = await expectDocumented('GET', '/analytics/?type=agg&since=2026-01-01&until=2026-02-09', 200, auth())
      assert.ok(agg.json().aggregates.total !== undefined)
      await expectDocumented('GET', '/analytics/?type=agg&since=2026-01-01&until=2026-02-09&split_by_platform=true', 200, auth())
      await expectDocumented('GET', '/analytics/?type=agg&since=2026-01-01&until=2026-02-09&account_id=100&platform=fb', 200, auth())
      await expectDocumented('GET', '/analytics/?type=daily&since=2026-01-01&until=2026-01-05&account_id=100&platform=ig', 200, auth())
    })

    it('GET /analytics/: 400, 403, 404, 422', async () => {
      const bare = await expectDocumented('GET', '/analytics/?account_id=100', 400, auth())
      assert.deepEqual(bare.json(), { detail: 'account_id requires exactly one platform to be specified' })
      await expectDocumented('GET', '/analytics/?brand_id=4', 403, auth())
      await expectDocumented('GET', '/analytics/?account_id=400&platform=fb', 404, auth())
      await expectDocumented('GET', '/analytics/?type=DAILY', 422, auth())
    })

    it('GET /analytics/?include=status: 200 daily, monthly and agg with the status members', async () => {
      for (const type of ['daily', 'monthly', 'agg']) {
        const report = await expectDocumented('GET', `/analytics/?type=${type}&since=2026-01-01&until=2026-02-09&include=status`, 200, auth())
        assert.equal(typeof report.json().data[0].metrics_reported.views, 'number', type)
      }
      await expectDocumented('GET', '/analytics/?type=agg&since=2026-01-01&until=2026-02-09&split_by_platform=true&include=status', 200, auth())
      await expectDocumented('GET', '/analytics/?include=totals', 422, auth())
    })

    it('GET /data-status: 200 (two pages), 400, 403, 404, 422', async () => {
      const first = await expectDocumented('GET', '/data-status?since=2026-01-01&until=2026-02-09&limit=3', 200, auth())
      assert.equal(first.json().total, 3)
      const second = await expectDocumented('GET', `/data-status?since=2026-01-01&until=2026-02-09&limit=3&cursor=${encodeURIComponent(first.json().next_cursor)}`, 200, auth())
      assert.ok(second.json().data.some((account: { missing: unknown[] }) => account.missing.length > 0))
      await expectDocumented('GET', '/data-status?account_id=100', 400, auth())
      await expectDocumented('GET', '/data-status?brand_id=4', 403, auth())
      await expectDocumented('GET', '/data-status?account_id=400&platform=fb', 404, auth())
      await expectDocumented('GET', '/data-status?limit=1000', 422, auth())
    })

    it('GET /catalog/metrics: 200 without a token', async () => {
      const catalog = await expectDocumented('GET', '/catalog/metrics', 200)
      assert.ok(catalog.json().total > 20)
    })

    it('GET /posts: 200 (two pages, topics and category), 400, 422', async () => {
      const first = await expectDocumented('GET', '/posts?since=2026-01-01&until=2026-01-31&limit=2&topics=true&category=true', 200, auth())
      assert.equal(first.json().data.length, 2)
      const last = await expectDocumented('GET', `/posts?since=2026-01-01&until=2026-01-31&limit=2&topics=true&category=true&cursor=${encodeURIComponent(first.json().next_cursor)}`, 200, auth())
      assert.equal(last.json().next_cursor, null)
      await expectDocumented('GET', '/posts?account_id=100', 400, auth())
      await expectDocumented('GET', '/posts?order_by=likes', 422, auth())
    })

    it('GET /changes: 200 (two pages, every type), 403, 410, 422', async () => {
      await recordSync(testStore.store.db, [0, 1, 2, 3].map((i) => importEvent(1 + (i % 2), i)), '2026-11-25T10:00:00Z')
      await recordUnsynced(testStore.store.db, [{ type: 'access.granted', userId: partner.userId, data: { brand_id: 2 } }, { type: 'access.revoked', userId: partner.userId, data: { brand_id: 4 } }], '2026-11-25T10:00:01Z')
      const first = await expectDocumented('GET', '/changes?limit=3', 200, auth())
      assert.deepEqual([first.json().data.length, first.json().has_more], [3, true])
      const last = await expectDocumented('GET', `/changes?limit=3&cursor=${encodeURIComponent(first.json().next_cursor)}`, 200, auth())
      assert.deepEqual([last.json().data.length, last.json().has_more], [3, false])
      await expectDocumented('GET', '/changes?start=latest', 200, auth())
      await expectDocumented('GET', '/changes?brand_id=4', 403, auth())
      await expectDocumented('GET', '/changes?type=posts.created', 422, auth())
      const later = await buildTestApp(testStore.store, {}, { now: () => Date.now() + 91 * 86_400_000 })
      try {
        const expired = await expectDocumented('GET', `/changes?cursor=${encodeURIComponent(last.json().next_cursor)}`, 410, { headers: bearer(await loginToken(later, partner)) }, later)
        assert.equal(expired.json().error_code, 'CURSOR_EXPIRED')
      } finally {
        await later.close()
      }
    })

    it('GET /health, /health/live, /health/ready: 200, and an unknown route: 404 with the ErrorBody component', async () => {
      await expectDocumented('GET', '/health', 200)
      await expectDocumented('GET', '/health/live', 200)
      await expectDocumented('GET', '/health/ready', 200)
      const missing = await app.inject({ method: 'GET', url: '/nowhere' })
      assert.equal(missing.statusCode, 404)
      assert.deepEqual(validator.componentErrors('ErrorBody', missing.json()), [])
      assert.equal(missing.json().request_id, missing.headers['x-request-id'])
    })

    it('429 with Retry-After once the minute window is spent', async () => {
      const limited = await buildTestApp(testStore.store, { RATE_LIMIT_PER_MINUTE: '2' })
      try {
        const headers = bearer(await loginToken(limited, partner))
        // The window is the clock's minute: requests may straddle its end, and then the count
        // starts over once (two minutes do not pass in five requests). What is checked is each
        // answer against the document, up to the first 429.
        let refused: LightMyRequestResponse | undefined
        for (let sent = 0; sent < 5 && refused === undefined; sent++) {
          const response = await limited.inject({ method: 'GET', url: '/me', headers })
          if (response.statusCode === 429) refused = assertDocumented('GET', '/me', 429, response)
          else assertDocumented('GET', '/me', 200, response)
        }
        assert.ok(refused !== undefined, 'no 429 within two windows\' worth of requests')
        assert.equal(refused.json().error_code, 'RATE_LIMIT_EXCEEDED')
        assert.equal(String(refused.json().retry_after), refused.headers['retry-after'])
      } finally {
        await limited.close()
      }
    })
  })
}
