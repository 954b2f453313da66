import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { Redis } from 'ioredis'
import { REDIS_DEADLINES } from '../../src/storage/counters/redis-counter-store.js'
import { buildLoggedTestApp, captureLogs, type CapturedLogs } from '../helpers/app.js'
import { insertBrandsWithAccounts } from '../helpers/fixtures.js'
import { bearer, createPartner, loginToken, type TestPartner } from '../helpers/partners.js'
import { inOneClockWindow } from '../helpers/redis.js'
import { startPrivateRedis, waitFor, type PrivateRedis } from '../helpers/processes.js'
import { createTestStore, DIALECTS, type TestStore } from '../helpers/stores.js'

/**
 * Redis hung (SIGSTOP) or gone (SIGKILL), on a redis-server the test starts itself (issue 11.1 and
 * the Redis-down policy of docs/reliability.md): protected requests and logins are answered within
 * the command timeout (1 s) plus a margin, limited by in-process counters with the limits
 * divided by REDIS_FALLBACK_DIVISOR (2) — never unlimited, never a 500 —, /health says 503 with
 * `redis: unreachable` while /health/ready (the balancer's probe) stays 200, each switch is logged once, and everything returns to Redis when it answers
 * again, without a restart. Once switched, no request asks Redis at all: shown not by timing them
 * but by what the frozen Redis received — it runs the commands piled up in its sockets when thawed,
 * and its script count says only the one request that met it before the switch sent any.
 * Before: requests and logins waited as long as Redis was frozen and /health said 200; with Redis
 * stopped, logins answered 500.
 */

const LIMIT_PER_MINUTE = 100
const MAX_FAILURES = 4
/**
 * A generous bound (a busy machine) for an answer that must come at all: the service's own
 * deadline (REDIS_DEADLINES.commandMs) is what ends a wait for the frozen Redis; without it a
 * request waits as long as Redis is frozen, far past this.
 */
const BOUND_MS = REDIS_DEADLINES.commandMs + 29_000
const WRONG_SECRET = 'pas_' + 'w'.repeat(43)

async function timed (request: Promise<LightMyRequestResponse>): Promise<{ ms: number, response: LightMyRequestResponse }> {
  const started = Date.now()
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_resolve, reject) => { timer = setTimeout(() => reject(new Error(`no answer within ${BOUND_MS} ms`)), BOUND_MS) })
  try {
    const response = await Promise.race([request, late])
    return { ms: Date.now() - started, response }
  } finally {
    clearTimeout(timer)
  }
}

for (const dialect of DIALECTS) {
  describe(`Redis unreachable: in-process fallback (${dialect})`, () => {
    let redis: PrivateRedis
    let test: TestStore
    let app: FastifyInstance
    let logs: CapturedLogs
    let headers: { authorization: string }

    before(async () => {
      redis = await startPrivateRedis()
      test = await createTestStore(dialect)
      await insertBrandsWithAccounts(test.store.db, [{ brand_id: 1 }])
      logs = captureLogs()
      app = await buildLoggedTestApp(test.store, {
        REDIS_URL: redis.url,
        RATE_LIMIT_PER_MINUTE: String(LIMIT_PER_MINUTE),
        RATE_LIMIT_PER_HOUR: '0',
        LOGIN_MAX_FAILURES: String(MAX_FAILURES),
      }, logs)
      headers = bearer(await loginToken(app, await createPartner(test.store, { brandIds: [1] })))
    })
    after(async () => {
      redis?.thaw()
      await app?.close()
      await test?.cleanup()
      await redis?.close()
    })

    /** Scripts (every counter operation is one) Redis has run so far, asked of Redis itself. */
    const scriptsRun = async (): Promise<number> => {
      const client = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 0 })
      try {
        await client.connect()
        const stats = await client.info('commandstats')
        return [...stats.matchAll(/^cmdstat_(?:evalsha|eval):calls=(\d+)/gm)].reduce((sum, match) => sum + Number(match[1]), 0)
      } finally {
        client.disconnect()
      }
    }
    const switches = (): string[] => logs.records().filter((record) => typeof record.msg === 'string' && record.msg.startsWith('redis ')).map((record) => `${String(record.level)} ${String(record.msg)}`)
    const login = async (partner: Pick<TestPartner, 'clientKey'>, secret: string, ip = '198.51.100.7') => await app.inject({
      method: 'POST', url: '/auth/login', remoteAddress: ip, payload: { api_client_key: partner.clientKey, api_secret_key: secret },
    })

    async function assertServedLocally (t: { diagnostic: (message: string) => void }, label: string): Promise<void> {
      // The first request meets the unreachable Redis and is answered from memory once its
      // command fails (its deadline, or a refused connection); it switches the process over.
      const first = await timed(app.inject({ url: '/me', headers }))
      assert.equal(first.response.statusCode, 200, first.response.body)
      const [me, wrong, health, ready, live] = await Promise.all([
        timed(app.inject({ url: '/me', headers })),
        timed(login(await createPartner(test.store, { brandIds: [1] }), WRONG_SECRET)),
        timed(app.inject({ url: '/health' })),
        timed(app.inject({ url: '/health/ready' })),
        timed(app.inject({ url: '/health/live' })),
      ])
      t.diagnostic(`${label} (information, not asserted): first /me ${first.ms} ms, then /me ${me.ms} ms, wrong login ${wrong.ms} ms, /health ${health.ms} ms, /health/ready ${ready.ms} ms, /health/live ${live.ms} ms`)
      assert.equal(me.response.statusCode, 200, me.response.body)
      // The limit in force, halved, is what the headers say.
      assert.equal(first.response.headers['x-ratelimit-limit-minutely'], String(LIMIT_PER_MINUTE / 2))
      assert.equal(me.response.headers['x-ratelimit-limit-minutely'], String(LIMIT_PER_MINUTE / 2))
      assert.equal(wrong.response.statusCode, 401)
      assert.equal(wrong.response.json().error_code, 'INVALID_CREDENTIALS')
      assert.equal(health.response.statusCode, 503)
      assert.deepEqual(health.response.json(), { status: 'error', version: health.response.json().version, database: 'ok', redis: 'unreachable', uptime_s: health.response.json().uptime_s })
      // The balancer's probe keeps the instance in rotation: it serves partners without Redis.
      assert.equal(ready.response.statusCode, 200)
      assert.equal(ready.response.body, '{"status":"ok","database":"ok"}')
      assert.equal(live.response.statusCode, 200)
      assert.equal(live.response.body, '{"status":"ok"}')
      // More requests, counted in memory (the remaining count goes down by one each) — in one
      // clock minute: a run the minute turned under (the next minute counts from 0 again) is sent
      // again (test/helpers/redis.ts); the remaining count is read relative to its first answer.
      await inOneClockWindow(60_000, 10_000, async () => {
        const next = []
        for (let i = 0; i < 5; i++) next.push(await timed(app.inject({ url: '/me', headers })))
        t.diagnostic(`${label} (information, not asserted): requests in fallback took ${next.map(({ ms }) => ms).join(', ')} ms`)
        assert.deepEqual(next.map(({ response }) => response.statusCode), [200, 200, 200, 200, 200])
        const remaining = next.map(({ response }) => Number(response.headers['x-ratelimit-remaining-minutely']))
        assert.deepEqual(remaining, remaining.map((_, i) => (remaining[0] ?? 0) - i))
      })
    }

    async function assertBackOnRedis (): Promise<void> {
      await waitFor('requests counted in Redis again (full limits)', async () => {
        const response = await app.inject({ url: '/me', headers })
        return response.statusCode === 200 && response.headers['x-ratelimit-limit-minutely'] === String(LIMIT_PER_MINUTE)
      }, 15_000)
      const health = await app.inject({ url: '/health' })
      assert.equal(health.statusCode, 200)
      assert.equal(health.json().redis, 'ok')
    }

    it('answers within the command timeout while Redis is frozen, with halved limits and a stricter lockout, then returns to Redis', async (t) => {
      // On Redis to begin with (a busy machine may have made the very first command late).
      await assertBackOnRedis()
      const logged = switches().length
      const scriptsBefore = await scriptsRun()

      redis.freeze()
      let locked: TestPartner
      try {
        await assertServedLocally(t, 'frozen')
        // Lockout in process: LOGIN_MAX_FAILURES 4 becomes 2.
        locked = await createPartner(test.store, { brandIds: [1] })
        assert.equal((await login(locked, WRONG_SECRET)).json().error_code, 'INVALID_CREDENTIALS')
        assert.equal((await login(locked, WRONG_SECRET)).json().error_code, 'INVALID_CREDENTIALS')
        assert.equal((await login(locked, locked.secretKey)).json().error_code, 'TOO_MANY_ATTEMPTS')
        assert.deepEqual(switches().slice(logged), ['40 redis unreachable: rate limits and lockout use in-process counters with stricter limits'])
      } finally {
        redis.thaw()
      }
      // Thawed, Redis runs what was sent to it meanwhile; the process's probe (a PING sent after the
      // switch, answered after all that) brings it back, without a request of ours.
      await waitFor('the switch back to Redis', () => switches().length - logged === 2, BOUND_MS)
      // Of the frozen time's requests (one that met Redis, the ten or more after the switch, three logins),
      // only the first sent Redis anything: the others did not ask it, so could not wait for it.
      assert.equal(await scriptsRun() - scriptsBefore, 1, 'scripts Redis received while frozen')
      await assertBackOnRedis()
      assert.deepEqual(switches().slice(logged), [
        '40 redis unreachable: rate limits and lockout use in-process counters with stricter limits',
        '30 redis reachable again: rate limits and lockout shared through redis',
      ])
      // A lock set while Redis was away still holds on this instance.
      assert.equal((await login(locked, locked.secretKey)).json().error_code, 'TOO_MANY_ATTEMPTS')
    })

    it('does the same while Redis is stopped, and returns to it when it is started again', async (t) => {
      await assertBackOnRedis()
      const logged = switches().length
      await redis.kill()
      try {
        await assertServedLocally(t, 'stopped')
      } finally {
        await redis.start()
      }
      await assertBackOnRedis()
      assert.deepEqual(switches().slice(logged), [
        '40 redis unreachable: rate limits and lockout use in-process counters with stricter limits',
        '30 redis reachable again: rate limits and lockout shared through redis',
      ])
    })
  })
}
