import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { IN_FLIGHT_TTL_MS, LoginLockout } from '../../src/services/auth/lockout.js'
import { login } from '../../src/services/auth/login.service.js'
import { createTokenService } from '../../src/services/auth/tokens.js'
import { MemoryCounterStore } from '../../src/storage/counters/memory-counter-store.js'
import { TEST_JWT_SECRET, buildTestApp } from '../helpers/app.js'
import { brandRange, insertBrandsWithAccounts } from '../helpers/fixtures.js'
import { createPartner, type TestPartner } from '../helpers/partners.js'
import { deleteRedisKeys, redisEnv, uniqueRedisPrefix } from '../helpers/redis.js'
import { createTestStore, DIALECTS, type TestStore } from '../helpers/stores.js'

/**
 * Correct logins are never locked out by attempts that have not failed (issue 19.3). With
 * LOGIN_MAX_FAILURES=3, 20 clients logging in at once with the right key pair — an ETL starting
 * its workers — all end with a token: an attempt refused only because 3 others are still being
 * checked gets 429 RATE_LIMIT_EXCEEDED with Retry-After (and retries as told), never the lockout's
 * 401 TOO_MANY_ATTEMPTS. On one instance (in process, Redis) and spread over two sharing Redis.
 * Before the fix, attempts in flight counted as failures: 17 of the 20 got TOO_MANY_ATTEMPTS.
 */

const CLIENTS = 20
const SETUPS = [
  { label: 'one instance, in-process counters', instances: 1, redis: false },
  { label: 'one instance, Redis', instances: 1, redis: true },
  { label: 'two instances, one Redis', instances: 2, redis: true },
] as const
/** Every client gives up after this many tries or this long (a bound, not a speed claim). */
const MAX_TRIES = 15
const DEADLINE_MS = 45_000

interface ClientRun {
  token: string | undefined
  answers: string[]
}

/** One client: logs in, and on 429 waits Retry-After plus up to half a second of jitter, as the client package does. */
async function logInUntilDone (app: FastifyInstance, partner: TestPartner, ip: string, deadline: number): Promise<ClientRun> {
  const answers: string[] = []
  for (let i = 0; i < MAX_TRIES && Date.now() < deadline; i++) {
    const response: LightMyRequestResponse = await app.inject({
      method: 'POST', url: '/auth/login', remoteAddress: ip, payload: { api_client_key: partner.clientKey, api_secret_key: partner.secretKey },
    })
    const body = response.json()
    answers.push(`${response.statusCode} ${String(body.error_code ?? 'token')}`)
    if (response.statusCode === 200) return { token: body.access_token, answers }
    if (response.statusCode !== 429) return { token: undefined, answers }
    assert.equal(response.headers['retry-after'], '1')
    assert.deepEqual([body.error_code, body.retry_after, body.detail], ['RATE_LIMIT_EXCEEDED', 1, 'Rate limit exceeded. Please wait 1 seconds before making another request.'])
    assert.equal(response.headers['www-authenticate'], undefined)
    await new Promise((resolve) => setTimeout(resolve, 1000 + Math.random() * 500))
  }
  return { token: undefined, answers }
}

for (const dialect of DIALECTS) {
  for (const setup of SETUPS) {
    describe(`concurrent correct logins with LOGIN_MAX_FAILURES=3 (${dialect}, ${setup.label})`, () => {
      const prefix = uniqueRedisPrefix('concurrent-logins')
      let test: TestStore
      const apps: FastifyInstance[] = []

      before(async () => {
        test = await createTestStore(dialect)
        await insertBrandsWithAccounts(test.store.db, brandRange(1, 1))
        for (let i = 0; i < setup.instances; i++) {
          apps.push(await buildTestApp(test.store, {
            LOGIN_MAX_FAILURES: '3',
            RATE_LIMIT_PER_MINUTE: '0',
            RATE_LIMIT_PER_HOUR: '0',
            ...(setup.redis ? redisEnv(prefix) : {}),
          }))
        }
      })
      after(async () => {
        for (const app of apps) await app.close()
        await test.cleanup()
        if (setup.redis) await deleteRedisKeys(prefix)
      })

      it(`gives all ${CLIENTS} a token, none TOO_MANY_ATTEMPTS, those told to wait retrying after Retry-After`, async () => {
        const partner = await createPartner(test.store, { brandIds: [1] })
        const deadline = Date.now() + DEADLINE_MS
        const runs = await Promise.all(Array.from({ length: CLIENTS }, async (_, i) =>
          await logInUntilDone(apps[i % apps.length] as FastifyInstance, partner, `198.51.100.${(i % 5) + 1}`, deadline)))
        const answers = runs.flatMap((run) => run.answers)
        assert.deepEqual(runs.filter((run) => run.token === undefined).map((run) => run.answers), [], 'every client ends with a token')
        assert.equal(answers.filter((answer) => answer === '200 token').length, CLIENTS)
        assert.deepEqual([...new Set(answers)].sort(), answers.length === CLIENTS ? ['200 token'] : ['200 token', '429 RATE_LIMIT_EXCEEDED'])
        // The tokens work.
        const me = await (apps[0] as FastifyInstance).inject({ method: 'GET', url: '/me', headers: { authorization: `Bearer ${String(runs[0]?.token)}` } })
        assert.equal(me.statusCode, 200)
      })
    })
  }
}

describe('a login not judged within its in-flight expiry', () => {
  it('is given up (an error, a 500 on the wire), not evaluated, and holds no place afterwards', async () => {
    const test = await createTestStore('sqlite')
    try {
      await insertBrandsWithAccounts(test.store.db, brandRange(1, 1))
      const partner = await createPartner(test.store, { brandIds: [1] })
      // The lookup "takes" longer than the expiry: the clock jumps past it once the attempt is admitted.
      let now = 1_000_000
      const counters = new MemoryCounterStore()
      const lockout = new LoginLockout(counters, { maxFailures: 1, maxFailuresPerIp: 1, lockoutSeconds: 60 }, 1, () => now)
      const deps = { db: test.store.db, tokens: createTokenService({ secret: TEST_JWT_SECRET, algorithm: 'HS256', ttlSeconds: 3600 }), lockout, tokenTtlSeconds: 3600 }
      const late = login(deps, { clientKey: partner.clientKey, secretKey: 'pas_' + 'w'.repeat(43) }, '192.0.2.1')
      now += IN_FLIGHT_TTL_MS
      await assert.rejects(late, /outlived its place in flight/)
      // Not a failure (the limit is 1: a failure would have locked the key), and no longer in flight.
      now += 1
      const token = await login(deps, { clientKey: partner.clientKey, secretKey: partner.secretKey }, '192.0.2.1')
      assert.equal(token.userId, partner.userId)
    } finally {
      await test.cleanup()
    }
  })
})
