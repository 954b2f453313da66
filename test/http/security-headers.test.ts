import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { connect } from 'node:net'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { DATA_CACHE_CONTROL } from '../../src/http/plugins/conditional-get.js'
import { DASHBOARD_CSP } from '../../src/http/routes/dashboard/index.js'
import { API_CONTENT_SECURITY_POLICY } from '../../src/http/security-headers.js'
import { buildTestApp, buildUnreadyTestApp } from '../helpers/app.js'
import { insertBrandsWithAccounts } from '../helpers/fixtures.js'
import { openPartnerApi, type PartnerApi } from '../helpers/partner-api.js'
import { bearer, createPartner, loginToken } from '../helpers/partners.js'
import { inOneClockWindow } from '../helpers/redis.js'
import { createTestStore, DIALECTS } from '../helpers/stores.js'
import { acceptedBody, concreteWebhookPath } from '../webhooks/webhook-fixtures.js'

/**
 * Security headers on every response (issues 11 and 14.2), read from the app's own route table
 * so a new route is covered the day it is added: `X-Content-Type-Options: nosniff` everywhere;
 * the JSON API's `Content-Security-Policy: default-src 'none'; frame-ancestors 'none'` as the
 * default, while /docs keeps Swagger UI's policy and a route that sets its own (the dashboard)
 * keeps it; `Cache-Control: no-store` and `Pragma: no-cache` on every answer of the login (RFC 6749
 * §5.1) and of the API — errors, 401s, 404s, 422s, 429s and 500s included — except the successful
 * data answers, which are `private, no-cache` with an ETag (revalidated, never stored shared).
 */

const DOCS_CSP = "default-src 'self'; img-src 'self' data:; script-src 'self'; style-src 'self' 'unsafe-inline'; font-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'self'; frame-ancestors 'self'"

function assertApiHeaders (response: LightMyRequestResponse, label: string, cacheControl = 'no-store'): void {
  assert.equal(response.headers['x-content-type-options'], 'nosniff', label)
  assert.equal(response.headers['content-security-policy'], API_CONTENT_SECURITY_POLICY, label)
  assert.equal(response.headers['x-frame-options'], 'DENY', label)
  assert.equal(response.headers['referrer-policy'], 'no-referrer', label)
  assert.equal(response.headers['cache-control'], cacheControl, label)
  assert.equal(response.headers.pragma, 'no-cache', label)
  assert.ok(response.headers['x-request-id'] !== undefined, label)
}

/** A concrete URL for a route of the table (wildcards filled with a real asset). */
function concrete (url: string): string {
  return url.startsWith('/dashboard/') ? url.replace('*', 'index.html') : url.replace('*', 'swagger-ui.css')
}

for (const dialect of DIALECTS) {
  describe(`security headers on every route (${dialect})`, () => {
    let api: PartnerApi
    let app: FastifyInstance

    before(async () => {
      api = await openPartnerApi(dialect, {
        seed: async (test) => { await insertBrandsWithAccounts(test.store.db, [{ brand_id: 1 }]) },
        brandIds: [1],
      })
      app = api.app
    })
    after(async () => { await api.close() })

    it('every route of the table answers with nosniff; API routes with the API policy and no-store, /docs with its own policy', async () => {
      assert.ok(app.routeTable.length >= 20)
      for (const route of app.routeTable) {
        const url = await concreteWebhookPath(api.test.store, api.partner.userId, concrete(route.url))
        const label = `${route.method} ${url}`
        const headers = route.access?.auth === 'bearer' ? api.auth : {}
        const body = url === '/auth/login' ? { api_client_key: api.partner.clientKey, api_secret_key: api.partner.secretKey } : acceptedBody(route.method, url)
        // GET (and HEAD) /reports ask their metrics in the query string (POST /reports in the body).
        const query = ['GET', 'HEAD'].includes(route.method) && url === '/reports' ? { metrics: 'views' } : undefined
        const response = await app.inject({ method: route.method as 'GET' | 'HEAD' | 'POST' | 'PATCH' | 'DELETE', url, headers, ...(query === undefined ? {} : { query }), ...(body === undefined ? {} : { payload: body }) })
        assert.ok(response.statusCode < 400, `${label}: ${response.statusCode}`)
        assert.equal(response.headers['x-content-type-options'], 'nosniff', label)
        if (url === '/' || url.startsWith('/dashboard')) {
          // The page and its assets: its own policy, cached by file (the page holds no partner data).
          assert.equal(response.headers['content-security-policy'], DASHBOARD_CSP, label)
          assert.equal(response.headers['x-frame-options'], 'DENY', label)
          assert.notEqual(response.headers['cache-control'], 'no-store', label)
          assert.equal(response.headers.pragma, undefined, label)
        } else if (url.startsWith('/docs')) {
          assert.equal(response.headers['content-security-policy'], DOCS_CSP, label)
          assert.equal(response.headers['x-frame-options'], 'SAMEORIGIN', label)
        } else if (url === '/openapi.json' || url === '/catalog/metrics') {
          // Public descriptions of the API, no partner data: cacheable by anyone for 5 minutes.
          assert.equal(response.headers['content-security-policy'], API_CONTENT_SECURITY_POLICY, label)
          assert.equal(response.headers['cache-control'], 'public, max-age=300', label)
          assert.equal(response.headers.pragma, undefined, label)
        } else if (route.access?.auth === 'bearer' && (route.method === 'GET' || route.method === 'HEAD')) {
          // Data answers may be kept and revalidated (docs/api-reference.md "Caching and revalidation").
          assertApiHeaders(response, label, DATA_CACHE_CONTROL)
          // An export file's ETag is strong, its SHA-256, for Range and If-Range (docs/exports.md); a data answer's is weak.
          const etag = /^\/exports\/[^/]+\/files\//.test(url) ? /^"[0-9a-f]{64}"$/ : /^W\/"[\w-]{27}"$/
          assert.match(String(response.headers.etag), etag, label)
        } else {
          assertApiHeaders(response, label)
        }
      }
    })

    it('the login answers — 200, 401, 422, 429 — carry no-store and Pragma: no-cache', async () => {
      const login = async (payload: unknown, ip = '198.51.100.20') => await app.inject({ method: 'POST', url: '/auth/login', remoteAddress: ip, payload: payload as Record<string, unknown> })
      const ok = await login({ api_client_key: api.partner.clientKey, api_secret_key: api.partner.secretKey })
      assert.equal(ok.statusCode, 200)
      assertApiHeaders(ok, 'login 200')
      const wrong = await login({ api_client_key: api.partner.clientKey, api_secret_key: 'pas_' + 'x'.repeat(43) })
      assert.equal(wrong.statusCode, 401)
      assertApiHeaders(wrong, 'login 401')
      const invalid = await login({ api_client_key: 1 })
      assert.equal(invalid.statusCode, 422)
      assertApiHeaders(invalid, 'login 422')
      const limited = await buildTestApp(api.test.store, { RATE_LIMIT_PER_MINUTE: '1', RATE_LIMIT_PER_HOUR: '0' })
      try {
        // Two logins in one clock minute; a run the minute turned under goes again from an address of its own.
        await inOneClockWindow(60_000, 10_000, async (attempt) => {
          const ip = `198.51.100.${21 + attempt}`
          await limited.inject({ method: 'POST', url: '/auth/login', remoteAddress: ip, payload: {} })
          const refused = await limited.inject({ method: 'POST', url: '/auth/login', remoteAddress: ip, payload: {} })
          assert.equal(refused.statusCode, 429)
          assertApiHeaders(refused, 'login 429')
        })
      } finally {
        await limited.close()
      }
    })

    it('errors of every partner route carry the headers: 401, 422, 404, 429', async () => {
      const partnerRoutes = app.routeTable.filter((route) => route.access?.auth === 'bearer' && route.method === 'GET').map((route) => route.url)
      const limited = await buildTestApp(api.test.store, { RATE_LIMIT_PER_MINUTE: '1', RATE_LIMIT_PER_HOUR: '0' })
      try {
        for (const route of partnerRoutes) {
          const url = await concreteWebhookPath(api.test.store, api.partner.userId, route)
          const unauthenticated = await app.inject({ url })
          assert.equal(unauthenticated.statusCode, 401)
          assertApiHeaders(unauthenticated, `401 ${url}`)
          // Routes without query parameters (a webhook, the list of webhooks) have no 422 to give here.
          if (!/^\/webhooks(\/:id)?$/.test(route) && !route.startsWith('/exports/:id')) {
            const invalid = await app.inject({ url: `${url}?limit=0x10&type=weekly`, headers: api.auth })
            assert.equal(invalid.statusCode, 422)
            assertApiHeaders(invalid, `422 ${url}`)
          }
          // Two requests in one clock minute; a run the minute turned under goes again with a partner of its own.
          await inOneClockWindow(60_000, 10_000, async () => {
            const headers = bearer(await loginToken(app, await createPartner(api.test.store, { brandIds: [1] })))
            await limited.inject({ url, headers })
            const refused = await limited.inject({ url, headers })
            assert.equal(refused.statusCode, 429)
            assertApiHeaders(refused, `429 ${url}`)
          })
        }
      } finally {
        await limited.close()
      }
      for (const url of ['/nope', '/me/extra', '/docs/static/%zz', '/%E0%A4%A']) {
        const missing = await app.inject({ url, headers: api.auth })
        assert.equal(missing.statusCode, 404, url)
        assert.equal(missing.json().error_code, 'NOT_FOUND', url)
        assertApiHeaders(missing, `404 ${url}`)
      }
    })

    it('500s carry the headers (the store closed under the app)', async () => {
      const test = await createTestStore(dialect)
      await insertBrandsWithAccounts(test.store.db, [{ brand_id: 1 }])
      const broken = await buildTestApp(test.store, { RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_PER_HOUR: '0' })
      try {
        const headers = bearer(await loginToken(broken, await createPartner(test.store, { brandIds: [1] })))
        await test.store.destroy()
        for (const url of ['/me', '/analytics/?type=agg', '/posts']) {
          const failed = await broken.inject({ url, headers })
          assert.equal(failed.statusCode, 500, url)
          assertApiHeaders(failed, `500 ${url}`)
        }
        const health = await broken.inject({ url: '/health' })
        assert.equal(health.statusCode, 503)
        assertApiHeaders(health, '503 /health')
      } finally {
        await broken.close()
        await test.cleanup()
      }
    })
  })
}

describe('routes that set their own policy keep it; requests Node cannot parse still get the headers', () => {
  it('a dashboard route with its own Content-Security-Policy keeps it (and nosniff)', async () => {
    const test = await createTestStore('sqlite')
    const app = await buildUnreadyTestApp(test.store)
    app.get('/dashboard/', async (_request, reply) => {
      return await reply.header('content-security-policy', "default-src 'self'").header('cache-control', 'no-cache').type('text/html').send('<!doctype html><title>Dashboard</title>')
    })
    try {
      await app.ready()
      const response = await app.inject({ url: '/dashboard/' })
      assert.equal(response.statusCode, 200)
      assert.equal(response.headers['content-security-policy'], "default-src 'self'")
      assert.equal(response.headers['cache-control'], 'no-cache')
      assert.equal(response.headers['x-content-type-options'], 'nosniff')
    } finally {
      await app.close()
      await test.cleanup()
    }
  })

  it('a request with a malformed header is answered 400 with the standard body and the headers', async () => {
    const test = await createTestStore('sqlite')
    const app = await buildTestApp(test.store)
    try {
      await app.listen({ host: '127.0.0.1', port: 0 })
      const { port } = app.server.address() as { port: number }
      const raw = await new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => socket.write('GET /health HTTP/1.1\r\nHost: x\r\nBad Header: \u0001\r\n\r\n'))
        let text = ''
        socket.setTimeout(5000, () => { socket.destroy(); reject(new Error('no answer')) })
        socket.on('data', (chunk) => { text += chunk.toString() })
        socket.on('close', () => resolve(text))
        socket.on('error', reject)
      })
      const [head = '', body = ''] = raw.split('\r\n\r\n')
      assert.match(head, /^HTTP\/1\.1 400 Bad Request/)
      assert.match(head, /\r\nx-content-type-options: nosniff\r\n/)
      assert.ok(head.includes(`\r\ncontent-security-policy: ${API_CONTENT_SECURITY_POLICY}\r\n`), head)
      const parsed = JSON.parse(body)
      assert.deepEqual(Object.keys(parsed), ['detail', 'error_code', 'status_code', 'status', 'timestamp', 'request_id'])
      assert.equal(parsed.status_code, 400)
    } finally {
      await app.close()
      await test.cleanup()
    }
  })
})
