import assert from 'node:assert/strict'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { after, before, describe, it } from 'node:test'
import { openPartnerApi, type PartnerApi } from '../helpers/partner-api.js'
import { insertBrandsWithAccounts } from '../helpers/fixtures.js'
import { insertPosts, postRow } from '../posts/posts-fixtures.js'
import { DIALECTS } from '../helpers/stores.js'
import { concreteWebhookPath } from '../webhooks/webhook-fixtures.js'

/**
 * HTTP conventions a client library expects: 405 with Allow for a known path asked with another
 * method (404 for an unknown path), br/gzip when asked, and on the data routes a weak ETag,
 * `Cache-Control: private, no-cache` and 304 for a matching If-None-Match. The 405 cases are
 * derived from the app's own route table, so a new route is covered the day it is added.
 */

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const
/** A query each data route answers 200 to (a new bearer route needing parameters gets its own here). */
function dataQuery (url: string): Record<string, string> {
  if (url.startsWith('/analytics')) return { type: 'agg', since: '2026-11-01', until: '2026-11-03' }
  if (url.startsWith('/posts')) return { since: '2026-11-01', until: '2026-11-03', limit: '50' }
  if (url === '/reports') return { metrics: 'views', since: '2026-11-01', until: '2026-11-03' }
  return {}
}
const ETAG = /^W\/"[A-Za-z0-9_-]{27}"$/

/** A concrete path a route URL serves (`*` and `:param` filled in). */
function pathOf (url: string): string {
  return url.replace(/\*/g, 'x').replace(/:[A-Za-z0-9_]+/g, '1')
}

for (const dialect of DIALECTS) {
  describe(`HTTP conventions: 405, compression, ETag and 304 (${dialect})`, () => {
    let api: PartnerApi

    before(async () => {
      // A wall clock that stands still: an answer of /changes carries the second its cursor was
      // issued, and the ETag test compares answers of calls that may fall in two seconds.
      const frozenAt = Date.now()
      api = await openPartnerApi(dialect, {
        brandIds: [1],
        now: () => frozenAt,
        env: { RATE_LIMIT_PER_MINUTE: '10000', RATE_LIMIT_PER_HOUR: '100000' },
        seed: async (test) => {
          await insertBrandsWithAccounts(test.store.db, [{ brand_id: 1, accounts: [{ platform: 'fb', account_id: 10 }] }])
          // 50 posts with long texts: about 30 KB of JSON on one page.
          await insertPosts(test.store.db, Array.from({ length: 50 }, (_, i) => postRow('fb', `10_${i}`, 10, `2026-11-0${1 + (i % 3)}T10:${String(i).padStart(2, '0')}:00Z`, {
            description: `Post ${i}: ${'a long description of the post '.repeat(15)}`,
            views: 1000 + i,
          })))
        },
      })
    })
    after(async () => { await api.close() })

    it('answers every served path with 405 and Allow for a method it does not serve', async () => {
      const byUrl = new Map<string, Set<string>>()
      for (const route of api.app.routeTable) byUrl.set(route.url, (byUrl.get(route.url) ?? new Set()).add(route.method))
      assert.ok(byUrl.size >= 10)
      for (const [url, served] of byUrl) {
        const path = pathOf(url)
        // A path may also match other routes (a wildcard): Allow lists them all.
        const allowed = new Set<string>()
        for (const [other, methods] of byUrl) if (new RegExp(`^${other.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/:[A-Za-z0-9_]+/g, '[^/]+')}$`).test(path)) for (const m of methods) allowed.add(m)
        // HEAD routes come from GET routes: GET is served wherever HEAD is (as the app rules).
        if (allowed.has('HEAD')) allowed.add('GET')
        for (const method of METHODS.filter((m) => !allowed.has(m))) {
          const response = await api.app.inject({ method, url: path, headers: api.auth })
          const label = `${method} ${path} (route ${url}: ${[...served].join(',')})`
          assert.equal(response.statusCode, 405, label)
          assert.equal(response.headers.allow, [...allowed].sort().join(', '), label)
          const body = response.json()
          assert.deepEqual(body, {
            detail: `Method ${method} is not allowed on this path; allowed: ${[...allowed].sort().join(', ')}`,
            error_code: 'METHOD_NOT_ALLOWED',
            status_code: 405,
            status: 'error',
            timestamp: body.timestamp,
            request_id: response.headers['x-request-id'],
          }, label)
          assert.match(body.timestamp, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/)
        }
      }
      const me = await api.app.inject({ method: 'POST', url: '/me' })
      assert.equal(me.headers.allow, 'GET, HEAD')
      const login = await api.app.inject({ method: 'GET', url: '/auth/login' })
      assert.equal(login.statusCode, 405)
      assert.equal(login.headers.allow, 'POST')
    })

    it('keeps 404 for a path no route serves, whatever the method', async () => {
      for (const method of METHODS) {
        for (const url of ['/nope', '/me/', '/analytics/x', '/auth']) {
          const response = await api.app.inject({ method, url, headers: api.auth })
          assert.equal(response.statusCode, 404, `${method} ${url}`)
          assert.equal(response.headers.allow, undefined)
          if (method !== 'HEAD') assert.equal(response.json().error_code, 'NOT_FOUND')
        }
      }
    })

    it('gives the data routes a weak ETag and Cache-Control, and 304 with no body for a matching If-None-Match', async () => {
      // An export file is not a data answer: it carries its own strong ETag (its SHA-256) for Range and If-Range (test/exports/).
      const dataRoutes = api.app.routeTable.filter((route) => route.method === 'GET' && route.access?.auth === 'bearer' && route.url !== '/exports/:id/files/:name').map((route) => route.url)
      for (const url of ['/analytics', '/analytics/', '/me', '/posts', '/posts/']) assert.ok(dataRoutes.includes(url), url)
      for (const route of dataRoutes) {
        const url = await concreteWebhookPath(api.test.store, api.partner.userId, route)
        const query = dataQuery(url)
        const first = await api.app.inject({ method: 'GET', url, query, headers: api.auth })
        assert.equal(first.statusCode, 200, url)
        const etag = first.headers.etag as string
        assert.match(etag, ETAG, url)
        assert.equal(first.headers['cache-control'], 'private, no-cache', url)

        for (const ifNoneMatch of [etag, etag.slice(2), `W/"other", ${etag}`, '*']) {
          const again = await api.app.inject({ method: 'GET', url, query, headers: { ...api.auth, 'if-none-match': ifNoneMatch } })
          assert.equal(again.statusCode, 304, `${url} If-None-Match: ${ifNoneMatch}`)
          assert.equal(again.body, '')
          assert.equal(again.headers.etag, etag)
          assert.equal(again.headers['cache-control'], 'private, no-cache')
          assert.equal(again.headers['content-type'], undefined)
          assert.match(String(again.headers['x-request-id']), /.+/)
          assert.match(String(again.headers['x-ratelimit-remaining-minutely']), /^\d+$/)
        }
        const changed = await api.app.inject({ method: 'GET', url, query, headers: { ...api.auth, 'if-none-match': 'W/"something-else"' } })
        assert.equal(changed.statusCode, 200)
        assert.equal(changed.headers.etag, etag)
        assert.deepEqual(changed.json(), first.json())
        const head = await api.app.inject({ method: 'HEAD', url, query, headers: api.auth })
        assert.equal(head.statusCode, 200)
        assert.equal(head.headers.etag, etag)
      }
    })

    it('changes the ETag when the data changes (an import)', async () => {
      const query = { since: '2026-11-01', until: '2026-11-03', limit: '50' }
      const original = await api.posts(query)
      await api.test.store.db.updateTable('posts').set({ views: 5 }).where('id', '=', '10_0').execute()
      const updated = await api.app.inject({ method: 'GET', url: '/posts', query, headers: { ...api.auth, 'if-none-match': original.headers.etag as string } })
      assert.equal(updated.statusCode, 200)
      assert.notEqual(updated.headers.etag, original.headers.etag)
    })

    it('puts no ETag on errors, login, /health or /openapi.json', async () => {
      const invalid = await api.get('/posts', { limit: '500' })
      assert.equal(invalid.status, 422)
      assert.equal(invalid.headers.etag, undefined)
      assert.equal(invalid.headers['cache-control'], 'no-store')
      const noToken = await api.app.inject({ method: 'GET', url: '/me' })
      assert.equal(noToken.statusCode, 401)
      assert.equal(noToken.headers.etag, undefined)
      for (const url of ['/health', '/openapi.json']) {
        const response = await api.app.inject({ method: 'GET', url })
        assert.equal(response.statusCode, 200)
        assert.equal(response.headers.etag, undefined, url)
      }
      const login = await api.app.inject({ method: 'POST', url: '/auth/login', payload: { api_client_key: api.partner.clientKey, api_secret_key: api.partner.secretKey } })
      assert.equal(login.statusCode, 200)
      assert.equal(login.headers.etag, undefined)
      assert.equal(login.headers['cache-control'], 'no-store')
    })

    it('compresses with br or gzip when asked, keeping the headers and the body', async () => {
      const query = { since: '2026-11-01', until: '2026-11-03', limit: '50' }
      const plain = await api.app.inject({ method: 'GET', url: '/posts', query, headers: api.auth })
      assert.equal(plain.headers['content-encoding'], undefined)
      assert.ok(plain.rawPayload.length > 25_000, String(plain.rawPayload.length))
      for (const [encoding, decode] of [['gzip', gunzipSync], ['br', brotliDecompressSync]] as const) {
        const response = await api.app.inject({ method: 'GET', url: '/posts', query, headers: { ...api.auth, 'accept-encoding': encoding } })
        assert.equal(response.statusCode, 200)
        assert.equal(response.headers['content-encoding'], encoding)
        assert.equal(response.headers.vary, 'accept-encoding')
        assert.ok(response.rawPayload.length < plain.rawPayload.length / 4, `${encoding}: ${response.rawPayload.length}`)
        assert.deepEqual(JSON.parse(decode(response.rawPayload).toString('utf8')), plain.json())
        assert.equal(response.headers.etag, plain.headers.etag)
        assert.equal(response.headers['content-type'], 'application/json; charset=utf-8')
        assert.match(String(response.headers['x-request-id']), /.+/)
        assert.match(String(response.headers['x-ratelimit-remaining-minutely']), /^\d+$/)
        assert.equal(response.headers['x-usage-period'], 'hourly')
      }
      const small = await api.app.inject({ method: 'GET', url: '/health', headers: { 'accept-encoding': 'gzip' } })
      assert.equal(small.headers['content-encoding'], undefined)
      const error = await api.app.inject({ method: 'GET', url: '/nope', headers: { 'accept-encoding': 'br' } })
      assert.equal(error.statusCode, 404)
      assert.equal(error.json().error_code, 'NOT_FOUND')
    })
  })
}
