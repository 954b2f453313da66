import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance } from 'fastify'
import { buildTestApp } from '../helpers/app.js'
import { brandRange, insertBrandsWithAccounts } from '../helpers/fixtures.js'
import { createPartner, type TestPartner } from '../helpers/partners.js'
import { deleteRedisKeys, redisEnv, uniqueRedisPrefix } from '../helpers/redis.js'
import { createTestStore, DIALECTS, type TestStore } from '../helpers/stores.js'

/**
 * Login lockout (docs/authentication.md "Lockout"): per client key and per IP, in process and in Redis.
 * LOGIN_MAX_FAILURES=3 and LOGIN_MAX_FAILURES_PER_IP=5 keep the tests short. The lockout lasts
 * LOGIN_LOCKOUT_SECONDS=60, far longer than any test takes, so a lock is still there however busy
 * the machine; that it ends is checked on an instance whose lockout lasts 1 s, by waiting longer.
 */

const WRONG_SECRET = 'pas_' + 'w'.repeat(43)
const COUNTERS = ['memory', 'redis'] as const

for (const dialect of DIALECTS) {
  for (const counters of COUNTERS) {
    describe(`login lockout (${dialect}, ${counters})`, () => {
      const prefix = uniqueRedisPrefix('lockout')
      let test: TestStore
      let app: FastifyInstance
      let shortLockout: FastifyInstance
      let ipCounter = 0

      before(async () => {
        test = await createTestStore(dialect)
        await insertBrandsWithAccounts(test.store.db, brandRange(1, 1))
        const env = { LOGIN_MAX_FAILURES: '3', LOGIN_MAX_FAILURES_PER_IP: '5', ...(counters === 'redis' ? redisEnv(prefix) : {}) }
        app = await buildTestApp(test.store, { ...env, LOGIN_LOCKOUT_SECONDS: '60' })
        shortLockout = await buildTestApp(test.store, { ...env, LOGIN_LOCKOUT_SECONDS: '1' })
      })
      after(async () => {
        await app.close()
        await shortLockout.close()
        await test.cleanup()
        if (counters === 'redis') await deleteRedisKeys(prefix)
      })

      /** Each test logs in from its own address, so per-IP counts do not leak between tests. */
      function freshIp (): string {
        ipCounter += 1
        return `10.0.${ipCounter}.1`
      }

      async function attempt (partner: Pick<TestPartner, 'clientKey'>, secret: string, ip: string, target: FastifyInstance = app) {
        return await target.inject({ method: 'POST', url: '/auth/login', remoteAddress: ip, payload: { api_client_key: partner.clientKey, api_secret_key: secret } })
      }

      function assertLocked (response: Awaited<ReturnType<typeof attempt>>) {
        assert.equal(response.statusCode, 401, response.body)
        const body = response.json()
        assert.equal(body.error_code, 'TOO_MANY_ATTEMPTS')
        assert.equal(body.detail, 'Too many failed login attempts. Please try again later.')
        assert.equal(body.request_id, response.headers['x-request-id'])
        assert.match(body.timestamp, /Z$/)
        assert.equal(response.headers['www-authenticate'], 'Bearer')
        // The seconds left of a 60 s lock: whole seconds, at most 60 (and the test is far quicker than 30 s).
        const retryAfter = Number(response.headers['retry-after'])
        assert.ok(Number.isInteger(retryAfter) && retryAfter >= 30 && retryAfter <= 60, `retry-after ${String(response.headers['retry-after'])}`)
      }

      it('locks a key after LOGIN_MAX_FAILURES wrong pairs, refusing even the right secret', async () => {
        const partner = await createPartner(test.store, { brandIds: [1] })
        const ip = freshIp()
        for (let i = 0; i < 3; i++) {
          const response = await attempt(partner, WRONG_SECRET, ip)
          assert.equal(response.json().detail, 'Invalid API client key or secret', `failure ${i + 1}`)
        }
        assertLocked(await attempt(partner, partner.secretKey, ip))
        // From another address too: the lock is on the key.
        assertLocked(await attempt(partner, partner.secretKey, freshIp()))
      })

      it('lets the right pair in again once LOGIN_LOCKOUT_SECONDS have passed since the locking failure', async () => {
        const partner = await createPartner(test.store, { brandIds: [1] })
        const ip = freshIp()
        for (let i = 0; i < 3; i++) assert.equal((await attempt(partner, WRONG_SECRET, ip, shortLockout)).json().error_code, 'INVALID_CREDENTIALS')
        // The lock was set before the third answer came back: 1 s from now it has ended, whatever the load.
        await new Promise((resolve) => setTimeout(resolve, 1500))
        assert.equal((await attempt(partner, partner.secretKey, ip, shortLockout)).statusCode, 200)
      })

      it('does not count malformed or 422 logins as failures', async () => {
        const partner = await createPartner(test.store, { brandIds: [1] })
        const ip = freshIp()
        for (let i = 0; i < 5; i++) {
          assert.equal((await attempt(partner, 'pas_short', ip)).json().detail, 'Malformed API secret key')
          assert.equal((await app.inject({ method: 'POST', url: '/auth/login', remoteAddress: ip, payload: { api_client_key: partner.clientKey } })).statusCode, 422)
        }
        assert.equal((await attempt(partner, partner.secretKey, ip)).statusCode, 200)
      })

      it('clears a key\'s failures on a successful login', async () => {
        const partner = await createPartner(test.store, { brandIds: [1] })
        const ip = freshIp()
        await attempt(partner, WRONG_SECRET, ip)
        await attempt(partner, WRONG_SECRET, ip)
        assert.equal((await attempt(partner, partner.secretKey, ip)).statusCode, 200)
        await attempt(partner, WRONG_SECRET, ip)
        await attempt(partner, WRONG_SECRET, ip)
        assert.equal((await attempt(partner, partner.secretKey, ip)).statusCode, 200)
      })

      it('locks an IP after LOGIN_MAX_FAILURES_PER_IP failures across keys (key spraying)', async () => {
        const victims = await Promise.all([1, 2, 3].map(async () => await createPartner(test.store, { brandIds: [1] })))
        const sprayer = freshIp()
        // Five failures over three keys: no key reaches 3, the address reaches 5.
        for (const victim of [victims[0], victims[1], victims[2], victims[0], victims[1]]) {
          assert.equal((await attempt(victim as TestPartner, WRONG_SECRET, sprayer)).json().error_code, 'INVALID_CREDENTIALS')
        }
        const third = victims[2] as TestPartner
        assertLocked(await attempt(third, third.secretKey, sprayer))
        // The keys themselves are not locked: their owners log in from elsewhere.
        assert.equal((await attempt(third, third.secretKey, freshIp())).statusCode, 200)
      })

      it('counts unknown well-formed keys as failures', async () => {
        const ghost = { clientKey: 'pak_' + 'G'.repeat(20) + String(1000 + ipCounter) }
        const ip = freshIp()
        for (let i = 0; i < 3; i++) assert.equal((await attempt(ghost, WRONG_SECRET, ip)).json().error_code, 'INVALID_CREDENTIALS')
        assertLocked(await attempt(ghost, WRONG_SECRET, freshIp()))
      })
    })
  }
}

describe('login lockout behind a proxy (TRUST_PROXY)', () => {
  let test: TestStore
  let app: FastifyInstance

  before(async () => {
    test = await createTestStore('sqlite')
    await insertBrandsWithAccounts(test.store.db, brandRange(1, 1))
    app = await buildTestApp(test.store, { LOGIN_MAX_FAILURES: '50', LOGIN_MAX_FAILURES_PER_IP: '2', TRUST_PROXY: '1' })
  })
  after(async () => {
    await app.close()
    await test.cleanup()
  })

  it('counts failures per client address from X-Forwarded-For, not per proxy', async () => {
    const partner = await createPartner(test.store, { brandIds: [1] })
    const login = async (clientIp: string, secret: string) => await app.inject({
      method: 'POST',
      url: '/auth/login',
      remoteAddress: '192.168.0.1',
      headers: { 'x-forwarded-for': clientIp },
      payload: { api_client_key: partner.clientKey, api_secret_key: secret },
    })
    await login('203.0.113.7', WRONG_SECRET)
    await login('203.0.113.7', WRONG_SECRET)
    assert.equal((await login('203.0.113.7', partner.secretKey)).json().error_code, 'TOO_MANY_ATTEMPTS')
    // Another client behind the same proxy is not locked out.
    assert.equal((await login('203.0.113.8', partner.secretKey)).statusCode, 200)
  })
})
