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
      // Three requests counted in Redis, then read three times by the command. A round counts only
      // if all of it happened within one clock minute (and hour): on a busy machine the requests
      // and the three reads can take longer than the room left in the minute, and the next minute
      // rightly starts at 0. On a loaded machine the server may also give up on a Redis that
      // answered late and count in its own memory for a while (docs/reliability.md "Redis down"),
      // which its answers say (the limit headers then show the fallback's halved limit). Either
      // way the round is not what this test reads, so it starts again with a partner of its own.
      const minuteOf = (ms: number): number => Math.floor(ms / 60_000)
      let read: { userId: string, startedMs: number, json: unknown, human: string, again: unknown } | undefined
      for (let round = 0; round < 4 && read === undefined; round++) {
        // Both windows: across the top of the hour the hourly count starts again.
        await awaitRoomInWindow(3_600_000, 30_000)
        await awaitRoomInMinute(30_000)
        const startedMs = Date.now()
        const candidate = round === 0 ? partner : await createPartner(testStore.store, { brandIds: [1] })
        const auth = bearer(await loginToken(app, candidate))
        const limitsSeen: unknown[] = []
        for (let i = 0; i < 3; i++) {
          const answer = await app.inject({ method: 'GET', url: '/me', headers: auth })
          assert.equal(answer.statusCode, 200)
          limitsSeen.push(answer.headers['x-ratelimit-limit-minutely'])
        }
        if (!limitsSeen.every((limit) => limit === '50')) continue
        const env = { DATABASE_URL: testStore.databaseUrl, ...redisEnv(prefix), ...limits }
        const run = await runCliCaptured(['usage', candidate.userId, '--json'], env)
        assert.equal(run.code, EXIT.OK, run.stderr)
        const human = await runCliCaptured(['usage', candidate.userId], env)
        assert.equal(human.code, EXIT.OK, human.stderr)
        const again = await runCliCaptured(['usage', candidate.userId, '--json'], env)
        assert.equal(again.code, EXIT.OK, again.stderr)
        if (minuteOf(Date.now()) !== minuteOf(startedMs)) continue
        read = { userId: candidate.userId, startedMs, json: run.json(), human: human.stderr, again: again.json() }
      }
      assert.ok(read !== undefined, 'no round of 4 was counted in Redis and read within one clock minute')
      const { userId, startedMs } = read
      assert.deepEqual(read.json, {
        user_id: userId,
        windows: [
          { window: 'minute', requests: 3, limit: 50, resets_at: windowEnd(startedMs, 60) },
          { window: 'hour', requests: 3, limit: 900, resets_at: windowEnd(startedMs, 3600) },
        ],
      })
      assert.equal(read.human, `${userId}: 3 requests this minute (limit 50; the window resets at ${windowEnd(startedMs, 60)})\n` +
        `${userId}: 3 requests this hour (limit 900; the window resets at ${windowEnd(startedMs, 3600)})\n`)
      // Reading counts nothing: the third read sees the same three requests.
      assert.deepEqual(read.again, read.json)
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
