import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { buildTestApp } from '../helpers/app.js'
import { brandRange, insertBrandsWithAccounts } from '../helpers/fixtures.js'
import { createPartner } from '../helpers/partners.js'
import { deleteRedisKeys, redisEnv, uniqueRedisPrefix } from '../helpers/redis.js'
import { createTestStore, DIALECTS, type TestStore } from '../helpers/stores.js'

/**
 * The lockout is decided atomically (issue 11.3): 100 concurrent wrong logins for one key evaluate
 * at most LOGIN_MAX_FAILURES (10) of them as guesses — exactly 10 answered INVALID_CREDENTIALS,
 * the 90 others refused without their secret being checked (and likewise per IP) — on one instance with the
 * in-process store, on one instance with Redis, and spread over two instances sharing Redis.
 * Before the fix the check and the count were two steps: all 100 (in process) or 78 (two
 * instances) were evaluated. A refused attempt is TOO_MANY_ATTEMPTS once the lock is set, and a
 * retryable 429 while the 10 admitted are still being checked (issue 19.3: attempts in flight are
 * not failures).
 */

const ATTEMPTS = 100
const MAX_FAILURES = 10
const MAX_FAILURES_PER_IP = 20
const WRONG_SECRET = 'pas_' + 'w'.repeat(43)

const SETUPS = [
  { label: 'one instance, in-process counters', instances: 1, redis: false },
  { label: 'one instance, Redis', instances: 1, redis: true },
  { label: 'two instances, one Redis', instances: 2, redis: true },
] as const

/** Exactly `evaluated` answers INVALID_CREDENTIALS; every other one is a refusal that evaluated nothing. */
function assertEvaluated (responses: LightMyRequestResponse[], evaluated: number): void {
  const counts = tally(responses)
  assert.equal(counts['401 INVALID_CREDENTIALS'], evaluated, JSON.stringify(counts))
  assert.equal((counts['401 TOO_MANY_ATTEMPTS'] ?? 0) + (counts['429 RATE_LIMIT_EXCEEDED'] ?? 0), ATTEMPTS - evaluated, JSON.stringify(counts))
  for (const response of responses.filter((r) => r.statusCode === 429)) {
    assert.equal(response.headers['retry-after'], '1')
    assert.equal(response.json().retry_after, 1)
  }
}

function tally (responses: LightMyRequestResponse[]): Record<string, number> {
  const counts: Record<string, number> = {}
  for (const response of responses) {
    const key = `${response.statusCode} ${String(response.json().error_code)}`
    counts[key] = (counts[key] ?? 0) + 1
  }
  return counts
}

for (const dialect of DIALECTS) {
  for (const setup of SETUPS) {
    describe(`login lockout under concurrency (${dialect}, ${setup.label})`, () => {
      const prefix = uniqueRedisPrefix('lockout-race')
      let test: TestStore
      const apps: FastifyInstance[] = []

      before(async () => {
        test = await createTestStore(dialect)
        await insertBrandsWithAccounts(test.store.db, brandRange(1, 1))
        for (let i = 0; i < setup.instances; i++) {
          apps.push(await buildTestApp(test.store, {
            LOGIN_MAX_FAILURES: String(MAX_FAILURES),
            LOGIN_MAX_FAILURES_PER_IP: String(MAX_FAILURES_PER_IP),
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

      it(`evaluates at most ${MAX_FAILURES} of ${ATTEMPTS} concurrent wrong logins for one key, then the key is locked`, async () => {
        const partner = await createPartner(test.store, { brandIds: [1] })
        const login = async (app: FastifyInstance, secret: string, ip: string) => await app.inject({
          method: 'POST', url: '/auth/login', remoteAddress: ip, payload: { api_client_key: partner.clientKey, api_secret_key: secret },
        })
        const responses = await Promise.all(Array.from({ length: ATTEMPTS }, async (_, i) => {
          return await login(apps[i % apps.length] as FastifyInstance, WRONG_SECRET, `198.51.100.${(i % 50) + 1}`)
        }))
        assertEvaluated(responses, MAX_FAILURES)
        for (const response of responses.filter((r) => r.json().error_code === 'TOO_MANY_ATTEMPTS')) {
          assert.equal(response.json().detail, 'Too many failed login attempts. Please try again later.')
          const retryAfter = Number(response.headers['retry-after'])
          assert.ok(retryAfter >= 1 && retryAfter <= 900, `retry-after ${String(response.headers['retry-after'])}`)
        }
        // The key is locked on every instance, for the right secret too.
        for (const app of apps) {
          const locked = await login(app, partner.secretKey, '203.0.113.99')
          assert.equal(locked.statusCode, 401)
          assert.equal(locked.json().error_code, 'TOO_MANY_ATTEMPTS')
        }
      })

      it(`evaluates at most LOGIN_MAX_FAILURES_PER_IP (${MAX_FAILURES_PER_IP}) guesses from one address spraying ${ATTEMPTS} keys at once`, async () => {
        const ip = '203.0.113.200'
        const responses = await Promise.all(Array.from({ length: ATTEMPTS }, async (_, i) => await (apps[i % apps.length] as FastifyInstance).inject({
          method: 'POST', url: '/auth/login', remoteAddress: ip, payload: { api_client_key: `pak_${'S'.repeat(20)}${String(1000 + i)}`, api_secret_key: WRONG_SECRET },
        })))
        assertEvaluated(responses, MAX_FAILURES_PER_IP)
      })
    })
  }
}
