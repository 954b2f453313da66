import assert from 'node:assert/strict'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { DASHBOARD_ASSETS_DIR } from '../../src/http/routes/dashboard/index.js'
import { SECURITY_HEADERS } from '../../src/http/security-headers.js'
import { createStore, type Store } from '../../src/storage/db.js'
import { ensureDashboardBuilt } from '../e2e/helpers/dashboard-build.js'
import { buildTestApp } from '../helpers/app.js'

/**
 * Unknown files under the static prefixes (/dashboard/ and /docs/static/, @fastify/static's
 * wildcard routes) are the contract's JSON 404 — `NOT_FOUND`, the standard body with its
 * request_id, the API's security headers — for GET and HEAD, while the files that exist still
 * answer 200 and other methods still 405. Before: a wildcard route that found no file handed the
 * request to the not-found handler, which saw a path served with GET and HEAD and answered
 * "Method GET is not allowed on this path; allowed: GET, HEAD" (405) to a GET.
 */

const MISSING = ['/dashboard/nope.js', '/dashboard/assets/nope.css', '/dashboard/deeper/still/nope.html', '/docs/static/nope.js', '/docs/static/nope/index.css']

/**
 * The API's headers, not a prefix's own (the dashboard's page policy and caching), except the
 * Content-Security-Policy of /docs, which Swagger UI's plugin sets on every answer under /docs
 * (docs/reliability.md "Security headers"): `docsPolicy`, read from a file it serves.
 */
function assertNotFound (response: LightMyRequestResponse, label: string, docsPolicy: string): void {
  assert.equal(response.statusCode, 404, `${label}: ${response.body}`)
  assert.equal(response.headers.allow, undefined, label)
  const expected = { ...SECURITY_HEADERS, ...(label.includes(' /docs/') ? { 'content-security-policy': docsPolicy } : {}) }
  for (const [name, value] of Object.entries(expected)) assert.equal(response.headers[name], value, `${label}: ${name}`)
  assert.match(String(response.headers['x-request-id']), /^[\w-]+$/, label)
  assert.equal(response.headers['content-type'], 'application/json; charset=utf-8', label)
}

describe('missing files under a static prefix', () => {
  let store: Store
  let app: FastifyInstance
  let docsPolicy: string

  before(async () => {
    // The real page, as `npm run build` writes it: without it /dashboard/* is a 503 saying so.
    await ensureDashboardBuilt()
    store = createStore({ kind: 'sqlite', file: ':memory:' })
    app = await buildTestApp(store)
    docsPolicy = String((await app.inject({ method: 'GET', url: '/docs/static/index.css' })).headers['content-security-policy'])
    assert.match(docsPolicy, /^default-src 'self';.*object-src 'none'/)
  })
  after(async () => {
    await app.close()
    await store.destroy()
  })

  it('GET: the contract\'s JSON 404 NOT_FOUND with its request_id', async () => {
    for (const url of MISSING) {
      const response = await app.inject({ method: 'GET', url })
      assertNotFound(response, `GET ${url}`, docsPolicy)
      const body = response.json() as Record<string, unknown>
      assert.match(String(body.timestamp), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
      assert.deepEqual(body, {
        detail: 'Not Found',
        error_code: 'NOT_FOUND',
        status_code: 404,
        status: 'error',
        timestamp: body.timestamp,
        request_id: response.headers['x-request-id'],
      }, url)
    }
  })

  it('HEAD: 404 with the same headers', async () => {
    for (const url of MISSING) assertNotFound(await app.inject({ method: 'HEAD', url }), `HEAD ${url}`, docsPolicy)
  })

  it('files that exist still answer 200, GET and HEAD, and another method is still 405 with Allow', async () => {
    const asset = readdirSync(join(DASHBOARD_ASSETS_DIR, 'assets')).find((name) => name.endsWith('.js'))
    assert.ok(asset !== undefined, 'the built dashboard has a script')
    const files = [
      { url: '/dashboard/', type: 'text/html; charset=utf-8' },
      { url: '/dashboard/index.html', type: 'text/html; charset=utf-8' },
      { url: `/dashboard/assets/${asset}`, type: 'application/javascript; charset=utf-8' },
      { url: '/docs/static/index.css', type: 'text/css; charset=utf-8' },
      { url: '/docs/static/swagger-ui.css', type: 'text/css; charset=utf-8' },
    ]
    for (const { url, type } of files) {
      const get = await app.inject({ method: 'GET', url })
      assert.equal(get.statusCode, 200, `GET ${url}`)
      assert.equal(get.headers['content-type'], type, url)
      assert.ok(get.body.length > 0, url)
      const head = await app.inject({ method: 'HEAD', url })
      assert.equal(head.statusCode, 200, `HEAD ${url}`)
      assert.equal(head.body, '', url)
    }
    for (const url of [...MISSING, ...files.map(({ url }) => url)]) {
      const post = await app.inject({ method: 'POST', url })
      assert.equal(post.statusCode, 405, `POST ${url}`)
      assert.equal(post.headers.allow, 'GET, HEAD', url)
      assert.equal(post.json().error_code, 'METHOD_NOT_ALLOWED', url)
    }
  })
})
