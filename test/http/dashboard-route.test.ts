import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import Fastify, { type FastifyInstance } from 'fastify'
import { DASHBOARD_CSP, dashboardRoutes } from '../../src/http/routes/dashboard/index.js'
import { buildTestApp } from '../helpers/app.js'
import { createTestStore, type TestStore } from '../helpers/stores.js'

/** The dashboard's route (src/http/routes/dashboard): redirects, its CSP, public, and absent from the API document. */

describe('dashboard route', () => {
  let testStore: TestStore
  let app: FastifyInstance

  before(async () => {
    testStore = await createTestStore('sqlite')
    app = await buildTestApp(testStore.store, { RATE_LIMIT_PER_MINUTE: '1' })
  })
  after(async () => {
    await app.close()
    await testStore.cleanup()
  })

  it('redirects / and /dashboard to /dashboard/, keeping the query string (the filters)', async () => {
    for (const [url, location] of [['/', '/dashboard/'], ['/?period=7d&brands=1,2', '/dashboard/?period=7d&brands=1,2'], ['/dashboard?view=posts', '/dashboard/?view=posts']]) {
      const response = await app.inject({ method: 'GET', url: url as string })
      assert.equal(response.statusCode, 302, url)
      assert.equal(response.headers.location, location)
      assert.equal(response.headers['content-security-policy'], DASHBOARD_CSP)
    }
  })

  it('is public and not rate limited, with a policy that allows nothing from elsewhere and nothing inline', async () => {
    for (let i = 0; i < 3; i++) {
      const response = await app.inject({ method: 'GET', url: '/' })
      assert.equal(response.statusCode, 302)
      assert.equal(response.headers['x-ratelimit-limit-minutely'], undefined)
    }
    assert.match(DASHBOARD_CSP, /^default-src 'self';/)
    assert.doesNotMatch(DASHBOARD_CSP, /unsafe|\*|https?:/)
  })

  it('is not part of the API document', async () => {
    const document = (await app.inject({ method: 'GET', url: '/openapi.json' })).json() as { paths: Record<string, unknown> }
    assert.deepEqual(Object.keys(document.paths).filter((path) => path === '/' || path.startsWith('/dashboard')), [])
  })

  it('says how to build the page when it was not built, instead of a bare 404', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'pa-no-dashboard-'))
    const bare = Fastify()
    await bare.register(dashboardRoutes, { assetsDir: empty })
    try {
      const response = await bare.inject({ method: 'GET', url: '/dashboard/' })
      assert.equal(response.statusCode, 503)
      assert.match(response.body, /npm run build/)
    } finally {
      await bare.close()
      rmSync(empty, { recursive: true, force: true })
    }
  })
})
