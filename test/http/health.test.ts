import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { VERSION } from '../../src/config/version.js'
import { buildTestApp } from '../helpers/app.js'
import { createTestStore, DIALECTS, type TestStore } from '../helpers/stores.js'

for (const dialect of DIALECTS) {
  describe(`GET /health (${dialect})`, () => {
    let testStore: TestStore
    let app: FastifyInstance

    before(async () => {
      testStore = await createTestStore(dialect)
      app = await buildTestApp(testStore.store)
    })
    after(async () => {
      await app.close()
      await testStore.cleanup()
    })

    it('answers 200 with the store reachable, without authentication', async () => {
      const response = await app.inject({ method: 'GET', url: '/health' })
      assert.equal(response.statusCode, 200)
      assert.equal(response.headers['content-type'], 'application/json; charset=utf-8')
      const body = response.json()
      assert.deepEqual(Object.keys(body).sort(), ['database', 'status', 'uptime_s', 'version'])
      assert.equal(body.status, 'ok')
      assert.equal(body.database, 'ok')
      assert.equal(body.version, VERSION)
      assert.ok(Number.isInteger(body.uptime_s) && body.uptime_s >= 0)
    })

    it('GET /health/live and /health/ready answer 200 with their small bodies, GET and HEAD, public and never rate limited', async () => {
      // A limit of 1 a minute: anything counted would be refused by the second request.
      const limited = await buildTestApp(testStore.store, { RATE_LIMIT_PER_MINUTE: '1', RATE_LIMIT_PER_HOUR: '1' })
      try {
        for (const [url, body] of [['/health/live', '{"status":"ok"}'], ['/health/ready', '{"status":"ok","database":"ok"}']] as const) {
          for (let i = 0; i < 3; i++) {
            const response = await limited.inject({ method: 'GET', url })
            assert.equal(response.statusCode, 200, url)
            assert.equal(response.body, body)
            assert.equal(response.headers['content-type'], 'application/json; charset=utf-8')
            assert.equal(response.headers['cache-control'], 'no-store')
            assert.equal(response.headers['x-content-type-options'], 'nosniff')
            assert.match(String(response.headers['x-request-id']), /^[\w-]+$/)
            assert.equal(response.headers['x-ratelimit-limit-minutely'], undefined)
            assert.equal(response.headers.etag, undefined)
          }
          const head = await limited.inject({ method: 'HEAD', url })
          assert.equal(head.statusCode, 200, url)
          assert.equal(head.body, '')
        }
      } finally {
        await limited.close()
      }
    })

    it('answers 503 when the store does not answer', async () => {
      // A second app on a store we then close: its connections are gone, the probe fails.
      const broken = await createTestStore(dialect)
      const brokenApp = await buildTestApp(broken.store)
      await broken.store.destroy()
      try {
        const response = await brokenApp.inject({ method: 'GET', url: '/health' })
        assert.equal(response.statusCode, 503)
        const body = response.json()
        assert.equal(body.status, 'error')
        assert.equal(body.database, 'unreachable')
        assert.equal(body.version, VERSION)
        // The balancer's probe says the same; the liveness probe still answers (the process does).
        const ready = await brokenApp.inject({ method: 'GET', url: '/health/ready' })
        assert.equal(ready.statusCode, 503)
        assert.equal(ready.body, '{"status":"error","database":"unreachable"}')
        assert.equal(ready.headers['content-type'], 'application/json; charset=utf-8')
        const live = await brokenApp.inject({ method: 'GET', url: '/health/live' })
        assert.equal(live.statusCode, 200)
        assert.equal(live.body, '{"status":"ok"}')
      } finally {
        await brokenApp.close()
        await broken.cleanup()
      }
    })
  })
}
