import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { EXIT } from '../../src/cli/io.js'
import { buildTestApp } from '../helpers/app.js'
import { runCliCaptured } from '../helpers/cli.js'
import { insertBrandsWithAccounts } from '../helpers/fixtures.js'
import { bearer, createPartner, loginToken, type TestPartner } from '../helpers/partners.js'
import { awaitRoomInMinute, awaitRoomInWindow, deleteRedisKeys, redisEnv, uniqueRedisPrefix } from '../helpers/redis.js'
import { createTestStore, DIALECTS, type TestStore } from '../helpers/stores.js'

function windowEnd (nowMs: number, seconds: number): string {
  return new Date((Math.floor(nowMs / (seconds * 1000)) + 1) * seconds * 1000).toISOString().slice(0, 19) + 'Z'
}

for (const dialect of DIALECTS) {
  describe(`operator CLI: usage (${dialect})`, () => {
    let testStore: TestStore
    let app: FastifyInstance
    let partner: TestPartner
    const prefix = uniqueRedisPrefix('usage')
    const limits = { RATE_LIMIT_PER_MINUTE: '50', RATE_LIMIT_PER_HOUR: '900' }

    before(async () => {
      testStore = await createTestStore(dialect)
      await insertBrandsWithAccounts(testStore.store.db, [{ brand_id: 1 }])
      partner = await createPartner(testStore.store, { brandIds: [1] })
      app = await buildTestApp(testStore.store, { ...redisEnv(prefix), ...limits })
    })
    after(async () => {
      await app.close()
      await testStore.cleanup()
      await deleteRedisKeys(prefix)
    })

    it('reads the requests the servers counted in Redis for the current minute and hour', async () => {
      // Three requests counted in Redis. On a loaded machine the server may give up on a Redis that
      // answered late and count in its own memory for a while (docs/reliability.md "Redis down"),
      // which its answers say (the limit headers then show the fallback's halved limit): such a
      // round is not what this test reads, so it starts again with a partner of its own.
      let counted: TestPartner | undefined
      for (let round = 0; round < 3 && counted === undefined; round++) {
        // Both windows: across the top of the hour the hourly count starts again.
        await awaitRoomInWindow(3_600_000, 3000)
        await awaitRoomInMinute()
        const candidate = round === 0 ? partner : await createPartner(testStore.store, { brandIds: [1] })
        const auth = bearer(await loginToken(app, candidate))
        const limitsSeen: unknown[] = []
        for (let i = 0; i < 3; i++) {
          const answer = await app.inject({ method: 'GET', url: '/me', headers: auth })
          assert.equal(answer.statusCode, 200)
          limitsSeen.push(answer.headers['x-ratelimit-limit-minutely'])
        }
        if (limitsSeen.every((limit) => limit === '50')) counted = candidate
      }
      assert.ok(counted !== undefined, 'the server counted in Redis in none of 3 rounds')
      const partnerCounted = counted
      const now = Date.now()
      const env = { DATABASE_URL: testStore.databaseUrl, ...redisEnv(prefix), ...limits }
      const run = await runCliCaptured(['usage', partnerCounted.userId, '--json'], env)
      assert.equal(run.code, EXIT.OK, run.stderr)
      assert.deepEqual(run.json(), {
        user_id: partnerCounted.userId,
        windows: [
          { window: 'minute', requests: 3, limit: 50, resets_at: windowEnd(now, 60) },
          { window: 'hour', requests: 3, limit: 900, resets_at: windowEnd(now, 3600) },
        ],
      })
      const human = await runCliCaptured(['usage', partnerCounted.userId], env)
      assert.equal(human.stderr, `${partnerCounted.userId}: 3 requests this minute (limit 50; the window resets at ${windowEnd(now, 60)})\n` +
        `${partnerCounted.userId}: 3 requests this hour (limit 900; the window resets at ${windowEnd(now, 3600)})\n`)
      // Reading counts nothing.
      assert.equal((await runCliCaptured(['usage', partnerCounted.userId, '--json'], env)).json<{ windows: Array<{ requests: number }> }>().windows[0]?.requests, 3)
    })

    it('says it cannot see in-process counters instead of printing zeros', async () => {
      const run = await runCliCaptured(['usage', partner.userId, '--json'], { DATABASE_URL: testStore.databaseUrl })
      assert.equal(run.code, EXIT.FAILURE)
      const message = 'REDIS_URL is not set, so each server counts requests in its own memory, which this command cannot read; ' +
        'set REDIS_URL (the same for the servers and this command) to share and read the counts'
      assert.deepEqual(run.json(), { error: { code: 'USAGE_NOT_SHARED', message, exit_code: 1 } })
      assert.equal(run.stderr, `error: ${message}\n`)
    })

    it('names REDIS_URL when Redis does not answer', async () => {
      const run = await runCliCaptured(['usage', partner.userId, '--json'], { DATABASE_URL: testStore.databaseUrl, REDIS_URL: 'redis://127.0.0.1:1' })
      assert.equal(run.code, EXIT.FAILURE)
      assert.deepEqual(run.json(), { error: { code: 'FAILED', message: 'cannot read the counters from Redis at REDIS_URL: connect ECONNREFUSED 127.0.0.1:1', exit_code: 1 } })
    })

    it('names an unknown user, and says when rate limiting is off', async () => {
      const unknown = await runCliCaptured(['usage', 'usr_nope'], { DATABASE_URL: testStore.databaseUrl, ...redisEnv(prefix) })
      assert.equal(unknown.code, EXIT.FAILURE)
      assert.equal(unknown.stderr, 'error: No user with id usr_nope\n')
      const off = await runCliCaptured(['usage', partner.userId, '--json'], { DATABASE_URL: testStore.databaseUrl, RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_PER_HOUR: '0' })
      assert.equal(off.code, EXIT.OK)
      assert.deepEqual(off.json(), { user_id: partner.userId, rate_limits: 'off', windows: [] })
    })
  })
}
