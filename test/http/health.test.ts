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
      } finally {
        await brokenApp.close()
        await broken.cleanup()
      }
    })
  })
}
