import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { EXIT } from '../../src/cli/io.js'
import { buildTestApp } from '../helpers/app.js'
import { runCliCaptured } from '../helpers/cli.js'
import { insertBrandsWithAccounts } from '../helpers/fixtures.js'
import { createTestStore, DIALECTS, type TestStore } from '../helpers/stores.js'
import { createWebhook, partnerWithToken, record } from '../webhooks/webhook-fixtures.js'

interface Listed {
  webhooks: Array<{ webhook_id: string, user_id: string, url: string, status: string, disabled_by: string | null, disabled_reason: string | null, pending_deliveries: number, oldest_pending_at: string | null }>
}

/**
 * `partner-analytics webhooks list|disable|enable` on both stores: every partner's endpoints with
 * their backlog (never a secret); an operator's disable is shown to the partner and only an
 * operator's enable lifts it.
 */
for (const dialect of DIALECTS) {
  describe(`operator CLI: webhooks (${dialect})`, () => {
    let testStore: TestStore
    let app: FastifyInstance
    let env: Record<string, string>
    const cli = async (...argv: string[]) => await runCliCaptured(argv, env)

    before(async () => {
      testStore = await createTestStore(dialect)
      env = { DATABASE_URL: testStore.databaseUrl, WEBHOOK_ALLOW_PRIVATE: '1' }
      await insertBrandsWithAccounts(testStore.store.db, [{ brand_id: 1 }, { brand_id: 2 }])
      app = await buildTestApp(testStore.store, { WEBHOOK_ALLOW_PRIVATE: '1', RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_PER_HOUR: '0' })
    })
    after(async () => {
      await app.close()
      await testStore.cleanup()
    })

    it('lists every endpoint with its owner and backlog, disables one with a reason the partner sees, and only the operator enables it', async () => {
      assert.equal((await cli('webhooks', 'list')).stderr, 'No webhooks.\n')
      const first = await partnerWithToken(app, testStore.store, [1])
      const second = await partnerWithToken(app, testStore.store, [2])
      const hookA = await createWebhook(app, first.auth, { url: 'http://127.0.0.1:9/a', events: ['brand.updated'] })
      const hookB = await createWebhook(app, second.auth, { url: 'http://127.0.0.1:9/b' })
      await record(testStore.store, [{ type: 'brand.updated', data: { brand_id: 1, brand_name: 'One', change: 'renamed' } }], '2026-11-25T10:00:00Z')

      const listed = await cli('webhooks', 'list', '--json')
      assert.equal(listed.code, EXIT.OK, listed.stderr)
      const { webhooks } = listed.json<Listed>()
      // Oldest first, also for two made within one second (creation times are kept to the millisecond).
      assert.deepEqual(webhooks.map((hook) => [hook.webhook_id, hook.user_id, hook.status, hook.pending_deliveries, hook.oldest_pending_at]), [
        [hookA.id, first.userId, 'enabled', 1, '2026-11-25T10:00:00Z'],
        [hookB.id, second.userId, 'enabled', 0, null],
      ])
      assert.ok(!listed.stdout.includes(hookA.secret) && !listed.stdout.includes('whsec_'))
      const mine = (await cli('webhooks', 'list', '--user', second.userId, '--json')).json<Listed>()
      assert.deepEqual(mine.webhooks.map((hook) => hook.webhook_id), [hookB.id])
      const human = await cli('webhooks', 'list')
      assert.match(human.stderr, new RegExp(`^${hookA.id}  ${first.userId}  enabled  pending=1  oldest_pending=2026-11-25T10:00:00Z  http://127\\.0\\.0\\.1:9/a$`, 'm'))

      const disabled = await cli('webhooks', 'disable', hookA.id, '--reason', 'abuse report #12', '--json')
      assert.equal(disabled.code, EXIT.OK, disabled.stderr)
      assert.deepEqual([disabled.json().status, disabled.json().disabled_by], ['disabled', 'operator'])
      const seen = (await app.inject({ method: 'GET', url: `/webhooks/${hookA.id}`, headers: first.auth })).json()
      assert.equal(seen.disabled_by, 'operator')
      assert.match(seen.disabled_reason, /^Disabled by the operator at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ: abuse report #12$/)
      const refused = await app.inject({ method: 'PATCH', url: `/webhooks/${hookA.id}`, headers: first.auth, payload: { status: 'enabled' } })
      assert.equal(refused.statusCode, 409)
      assert.equal(refused.json().error_code, 'CONFLICT')
      assert.equal((await app.inject({ method: 'POST', url: `/webhooks/${hookA.id}/test`, headers: first.auth })).statusCode, 409)

      const enabled = await cli('webhooks', 'enable', hookA.id)
      assert.equal(enabled.code, EXIT.OK)
      assert.equal(enabled.stderr, `Webhook ${hookA.id} enabled.\n`)
      const after = (await app.inject({ method: 'GET', url: `/webhooks/${hookA.id}`, headers: first.auth })).json()
      assert.deepEqual([after.status, after.disabled_by, after.disabled_reason], ['enabled', null, null])
    })

    it('names an unknown webhook (exit 1)', async () => {
      const run = await cli('webhooks', 'disable', 'wh_nope')
      assert.equal(run.code, EXIT.FAILURE)
      assert.match(run.stderr, /No webhook with id wh_nope/)
    })
  })
}
