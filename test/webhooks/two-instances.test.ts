import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance } from 'fastify'
import { buildTestApp } from '../helpers/app.js'
import { buildServer, startBuiltServer, type BuiltServer } from '../helpers/built-serve.js'
import { insertBrandsWithAccounts } from '../helpers/fixtures.js'
import { waitFor } from '../helpers/processes.js'
import { createTestStore, type TestStore } from '../helpers/stores.js'
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js'
import { createWebhook, partnerWithToken, record } from './webhook-fixtures.js'

/**
 * Two built `serve` instances on one PostgreSQL deliver one burst together: both take part (more
 * attempts at once than one instance may run), no delivery is attempted by both at once (the
 * receiver sees no webhook-id twice while it is still answering it), and, with nobody killed,
 * every event arrives exactly once.
 */

const EVENTS = 300
const PATHS = ['/pair-0', '/pair-1']

describe('webhooks with two serve instances on one PostgreSQL', () => {
  let test: TestStore
  let app: FastifyInstance
  let receiver: Receiver
  const servers: BuiltServer[] = []

  before(async () => {
    await buildServer()
    test = await createTestStore('postgres')
    await insertBrandsWithAccounts(test.store.db, [{ brand_id: 1 }])
    app = await buildTestApp(test.store, { WEBHOOK_ALLOW_PRIVATE: '1', RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_PER_HOUR: '0' })
    receiver = await startReceiver()
  })
  after(async () => {
    for (const server of servers) await server.stop()
    await app.close()
    await receiver.close()
    await test.cleanup()
  })

  it('shares the work and never runs one attempt twice at once', async () => {
    const partner = await partnerWithToken(app, test.store, [1])
    for (const path of PATHS) {
      // Slow answers keep each attempt open long enough for a second claimer to collide with it, if it could.
      receiver.on(path, { delayMs: 150 })
      await createWebhook(app, partner.auth, { url: `${receiver.origin}${path}`, events: ['brand.updated'] })
    }
    // Per instance: at most 4 attempts at once to each endpoint, 6 in all; two instances can reach 12.
    const env = { DATABASE_URL: test.databaseUrl, WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_CONCURRENCY: '6', WEBHOOK_CONCURRENCY_PER_ENDPOINT: '4' }
    servers.push(await startBuiltServer(env), await startBuiltServer(env))
    const first = Number((await test.store.db.selectFrom('change_clock').select('last_event_id').executeTakeFirstOrThrow()).last_event_id) + 1
    for (let batch = 0; batch < EVENTS / 50; batch++) {
      await record(test.store, Array.from({ length: 50 }, (_, i) => ({ type: 'brand.updated' as const, data: { brand_id: 1, brand_name: `P${batch}-${i}`, change: 'renamed' as const } })))
    }
    await waitFor('every delivery', () => receiver.received.length >= EVENTS * PATHS.length, 60_000)
    await new Promise((resolve) => setTimeout(resolve, 500))

    assert.deepEqual(receiver.overlaps, [], 'no webhook-id was being answered twice at once')
    const keys = receiver.received.map((delivery) => `${delivery.path} ${String(delivery.headers['webhook-id'])}`)
    assert.equal(keys.length, EVENTS * PATHS.length, 'nothing twice')
    assert.deepEqual(new Set(keys), new Set(PATHS.flatMap((path) => Array.from({ length: EVENTS }, (_, i) => `${path} evt_${first + i}`))))
    assert.ok(receiver.maxInFlight() > 6, `both instances attempted at once (at most ${receiver.maxInFlight()} requests at a time)`)
    assert.ok(receiver.maxInFlight() <= 12, String(receiver.maxInFlight()))
    await waitFor('every outcome written', async () => {
      const left = await test.store.db.selectFrom('webhook_deliveries').select((eb) => eb.fn.countAll<number>().as('count')).where('status', '!=', 'succeeded').executeTakeFirstOrThrow()
      return Number(left.count) === 0
    }, 10_000)
  })
})
