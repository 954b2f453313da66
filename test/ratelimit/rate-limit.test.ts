import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { buildTestApp } from '../helpers/app.js'
import { brandRange, insertBrandsWithAccounts } from '../helpers/fixtures.js'
import { bearer, createPartner, type TestPartner } from '../helpers/partners.js'
import { deleteRedisKeys, inOneClockWindow, redisEnv, uniqueRedisPrefix } from '../helpers/redis.js'
import { createTestStore, DIALECTS, type TestStore } from '../helpers/stores.js'

/** Rate limiting over HTTP (docs/rate-limiting.md): headers, 429s, scopes, Redis sharing. */

const RATE_HEADERS = [
  'x-ratelimit-limit-minutely', 'x-ratelimit-remaining-minutely', 'x-ratelimit-reset-minutely',
  'x-ratelimit-limit-hourly', 'x-ratelimit-remaining-hourly', 'x-ratelimit-reset-hourly',
  'x-usage-total', 'x-usage-period',
]

/**
 * Runs a round that counts in the clock minute (and hour) until one run stays inside one minute
 * (test/helpers/redis.ts): under load its login and requests can outlast any margin, and the next
 * minute rightly counts from 0. Each run makes its own partner, token and addresses.
 */
async function inOneMinute (round: (attempt: number) => Promise<void>): Promise<void> {
  await inOneClockWindow(60_000, 10_000, round)
}

function assertRateHeaders (response: LightMyRequestResponse, minute: { limit: number, remaining: number }, hour: { limit: number, remaining: number, used: number }) {
  const now = Date.now() / 1000
  assert.equal(response.headers['x-ratelimit-limit-minutely'], String(minute.limit))
  assert.equal(response.headers['x-ratelimit-remaining-minutely'], String(minute.remaining))
  const minuteReset = Number(response.headers['x-ratelimit-reset-minutely'])
  assert.ok(minuteReset % 60 === 0 && minuteReset > now && minuteReset <= now + 60, `minute reset ${minuteReset}`)
  assert.equal(response.headers['x-ratelimit-limit-hourly'], String(hour.limit))
  assert.equal(response.headers['x-ratelimit-remaining-hourly'], String(hour.remaining))
  const hourReset = Number(response.headers['x-ratelimit-reset-hourly'])
  assert.ok(hourReset % 3600 === 0 && hourReset > now && hourReset <= now + 3600, `hour reset ${hourReset}`)
  assert.equal(response.headers['x-usage-total'], String(hour.used))
  assert.equal(response.headers['x-usage-period'], 'hourly')
}

function assert429 (response: LightMyRequestResponse) {
  assert.equal(response.statusCode, 429, response.body)
  const body = response.json()
  const retryAfter = Number(response.headers['retry-after'])
  assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `retry-after ${String(response.headers['retry-after'])}`)
  assert.deepEqual(body, {
    detail: `Rate limit exceeded. Please wait ${retryAfter} seconds before making another request.`,
    error_code: 'RATE_LIMIT_EXCEEDED',
    status_code: 429,
    status: 'error',
    timestamp: body.timestamp,
    request_id: response.headers['x-request-id'],
    retry_after: retryAfter,
  })
  assert.match(body.timestamp, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/)
}

for (const dialect of DIALECTS) {
  describe(`rate limiting (${dialect})`, () => {
    const prefix = uniqueRedisPrefix('ratelimit')
    const env = { RATE_LIMIT_PER_MINUTE: '3', RATE_LIMIT_PER_HOUR: '100' }
    let test: TestStore
    let memoryApp: FastifyInstance
    let redisA: FastifyInstance
    let redisB: FastifyInstance

    before(async () => {
      test = await createTestStore(dialect)
      await insertBrandsWithAccounts(test.store.db, brandRange(1, 1))
      memoryApp = await buildTestApp(test.store, env)
      // Two instances of the service on one database and one Redis, as behind a load balancer.
      redisA = await buildTestApp(test.store, { ...env, ...redisEnv(prefix), LOGIN_MAX_FAILURES: '2' })
      redisB = await buildTestApp(test.store, { ...env, ...redisEnv(prefix), LOGIN_MAX_FAILURES: '2' })
    })
    after(async () => {
      await Promise.all([memoryApp.close(), redisA.close(), redisB.close()])
      await test.cleanup()
      await deleteRedisKeys(prefix)
    })

    let loginIps = 0

    /** A partner and a token; each login comes from its own address, so login-IP buckets stay fresh. */
    async function partnerWithToken (app: FastifyInstance): Promise<{ partner: TestPartner, token: string }> {
      const partner = await createPartner(test.store, { brandIds: [1] })
      loginIps += 1
      const response = await app.inject({
        method: 'POST',
        url: '/auth/login',
        remoteAddress: `10.1.${loginIps}.1`,
        payload: { api_client_key: partner.clientKey, api_secret_key: partner.secretKey },
      })
      assert.equal(response.statusCode, 200, response.body)
      return { partner, token: response.json().access_token }
    }

    it('puts the headers on every response of a user, refuses the 4th request of a minute with the 429 body', async () => {
      await inOneMinute(async () => {
        const { token } = await partnerWithToken(memoryApp)
        const responses = []
        for (let i = 0; i < 3; i++) responses.push(await memoryApp.inject({ url: '/me', headers: bearer(token) }))
        responses.forEach((response, i) => {
          assert.equal(response.statusCode, 200)
          assertRateHeaders(response, { limit: 3, remaining: 2 - i }, { limit: 100, remaining: 99 - i, used: i + 1 })
        })
        const refused = await memoryApp.inject({ url: '/me', headers: bearer(token) })
        assert429(refused)
        assertRateHeaders(refused, { limit: 3, remaining: 0 }, { limit: 100, remaining: 96, used: 4 })
        // Refused requests count too.
        const again = await memoryApp.inject({ url: '/me', headers: bearer(token) })
        assert429(again)
        assert.equal(again.headers['x-usage-total'], '5')
      })
    })

    it('counts requests whatever their answer: a 422 is limited and carries the headers', async () => {
      await inOneMinute(async () => {
        const { token } = await partnerWithToken(memoryApp)
        const invalid = await memoryApp.inject({ url: '/me?limit=0', headers: bearer(token) })
        assert.equal(invalid.statusCode, 422)
        assertRateHeaders(invalid, { limit: 3, remaining: 2 }, { limit: 100, remaining: 99, used: 1 })
      })
    })

    it('limits each user separately and never limits /health or unauthenticated requests by user', async () => {
      await inOneMinute(async () => {
        const first = await partnerWithToken(memoryApp)
        const second = await partnerWithToken(memoryApp)
        const firstStatuses = []
        for (let i = 0; i < 4; i++) firstStatuses.push((await memoryApp.inject({ url: '/me', headers: bearer(first.token) })).statusCode)
        assert.deepEqual(firstStatuses, [200, 200, 200, 429])
        assert.equal((await memoryApp.inject({ url: '/me', headers: bearer(second.token) })).statusCode, 200)
      })
      for (let i = 0; i < 5; i++) {
        const health = await memoryApp.inject({ url: '/health' })
        assert.equal(health.statusCode, 200)
        for (const header of RATE_HEADERS) assert.equal(health.headers[header], undefined, header)
      }
      const anonymous = await memoryApp.inject({ url: '/me' })
      assert.equal(anonymous.statusCode, 401)
      assert.equal(anonymous.headers['x-ratelimit-limit-minutely'], undefined)
    })

    it('limits /auth/login per IP with the same windows and headers', async () => {
      await inOneMinute(async (attempt) => {
        const partner = await createPartner(test.store, { brandIds: [1] })
        // Addresses of this round's own: a round run again must not meet the last one's counts.
        const [ip, other] = [`198.51.100.${2 * attempt + 1}`, `198.51.100.${2 * attempt + 2}`]
        const login = async (ip: string) => await memoryApp.inject({
          method: 'POST', url: '/auth/login', remoteAddress: ip, payload: { api_client_key: partner.clientKey, api_secret_key: partner.secretKey },
        })
        const responses = []
        for (let i = 0; i < 3; i++) responses.push(await login(ip))
        responses.forEach((response, i) => {
          assert.equal(response.statusCode, 200)
          assertRateHeaders(response, { limit: 3, remaining: 2 - i }, { limit: 100, remaining: 99 - i, used: i + 1 })
        })
        assert429(await login(ip))
        assert.equal((await login(other)).statusCode, 200)
      })
    })

    it('refuses once the hour window is spent, with only the hourly headers when the minute is off', async () => {
      const hourly = await buildTestApp(test.store, { RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_PER_HOUR: '2' })
      try {
        // Three requests in one clock hour, each run with a partner of its own.
        await inOneClockWindow(3_600_000, 10_000, async () => {
          const { token } = await partnerWithToken(hourly)
          const before = Date.now()
          const responses = []
          for (let i = 0; i < 3; i++) responses.push(await hourly.inject({ url: '/me', headers: bearer(token) }))
          const after = Date.now()
          assert.deepEqual(responses.map((response) => response.statusCode), [200, 200, 429])
          const reset = Number(responses[0]?.headers['x-ratelimit-reset-hourly'])
          assert.equal(reset % 3600, 0)
          responses.forEach((response, i) => {
            assert.deepEqual(Object.keys(response.headers).filter((name) => name.startsWith('x-ratelimit-') || name.startsWith('x-usage-')).sort(), [
              'x-ratelimit-limit-hourly', 'x-ratelimit-remaining-hourly', 'x-ratelimit-reset-hourly', 'x-usage-period', 'x-usage-total',
            ])
            assert.deepEqual([response.headers['x-ratelimit-limit-hourly'], response.headers['x-ratelimit-remaining-hourly'], response.headers['x-ratelimit-reset-hourly'], response.headers['x-usage-total']],
              ['2', String(Math.max(0, 1 - i)), String(reset), String(i + 1)])
          })
          const refused = responses[2] as LightMyRequestResponse
          assert.equal(refused.json().error_code, 'RATE_LIMIT_EXCEEDED')
          // The wait is what is left of the hour: whole seconds, rounded up, as the server saw it.
          const retryAfter = Number(refused.headers['retry-after'])
          assert.ok(retryAfter >= Math.ceil(reset - after / 1000) && retryAfter <= Math.ceil(reset - before / 1000), `retry-after ${retryAfter}, hour ends at ${reset}`)
          assert.equal(refused.json().retry_after, retryAfter)
          assert.equal(refused.json().detail, `Rate limit exceeded. Please wait ${retryAfter} seconds before making another request.`)
        })
      } finally {
        await hourly.close()
      }
    })

    it('limits nothing with both windows at 0: many logins from one address, many requests of one user, no headers', async () => {
      const unlimited = await buildTestApp(test.store, { RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_PER_HOUR: '0' })
      try {
        const partner = await createPartner(test.store, { brandIds: [1] })
        let token = ''
        for (let i = 0; i < 30; i++) {
          const login = await unlimited.inject({ method: 'POST', url: '/auth/login', remoteAddress: '198.51.100.99', payload: { api_client_key: partner.clientKey, api_secret_key: partner.secretKey } })
          assert.equal(login.statusCode, 200, `login ${i + 1}: ${login.body}`)
          for (const header of RATE_HEADERS) assert.equal(login.headers[header], undefined, `${header} on login ${i + 1}`)
          token = login.json().access_token
        }
        for (let i = 0; i < 120; i++) {
          const me = await unlimited.inject({ url: '/me', headers: bearer(token) })
          assert.equal(me.statusCode, 200, `request ${i + 1}`)
          for (const header of RATE_HEADERS) assert.equal(me.headers[header], undefined, `${header} on request ${i + 1}`)
        }
      } finally {
        await unlimited.close()
      }
    })

    it('shares a user\'s limit between two instances on one Redis', async () => {
      await inOneMinute(async () => {
        const { token } = await partnerWithToken(redisA)
        const statuses = []
        for (const app of [redisA, redisB, redisA]) {
          const response = await app.inject({ url: '/me', headers: bearer(token) })
          statuses.push(response.statusCode)
        }
        assert.deepEqual(statuses, [200, 200, 200])
        const refused = await redisB.inject({ url: '/me', headers: bearer(token) })
        assert429(refused)
        assertRateHeaders(refused, { limit: 3, remaining: 0 }, { limit: 100, remaining: 96, used: 4 })
        // The in-process instance knows nothing of it.
        assert.equal((await memoryApp.inject({ url: '/me', headers: bearer(token) })).statusCode, 200)
      })
    })

    it('shares the login lockout between two instances on one Redis', async () => {
      const partner = await createPartner(test.store, { brandIds: [1] })
      const login = async (app: FastifyInstance, secret: string, ip: string) => await app.inject({
        method: 'POST', url: '/auth/login', remoteAddress: ip, payload: { api_client_key: partner.clientKey, api_secret_key: secret },
      })
      const wrong = 'pas_' + 'x'.repeat(43)
      assert.equal((await login(redisA, wrong, '198.51.100.10')).json().error_code, 'INVALID_CREDENTIALS')
      assert.equal((await login(redisB, wrong, '198.51.100.11')).json().error_code, 'INVALID_CREDENTIALS')
      // Two failures (one per instance) reached LOGIN_MAX_FAILURES=2: both instances now refuse.
      for (const app of [redisA, redisB]) {
        const locked = await login(app, partner.secretKey, '198.51.100.12')
        assert.equal(locked.statusCode, 401)
        assert.equal(locked.json().error_code, 'TOO_MANY_ATTEMPTS')
      }
    })
  })
}

describe('rate limiting when Redis is unreachable', () => {
  it('limits from in-process counters with halved limits (never unlimited, never a 500) and says so on /health', async () => {
    const test = await createTestStore('sqlite')
    // Port 1 refuses connections at once.
    const app = await buildTestApp(test.store, { REDIS_URL: 'redis://127.0.0.1:1', RATE_LIMIT_PER_MINUTE: '4', RATE_LIMIT_PER_HOUR: '0' })
    try {
      await insertBrandsWithAccounts(test.store.db, brandRange(1, 1))
      const health = await app.inject({ url: '/health' })
      assert.equal(health.statusCode, 503)
      assert.deepEqual([health.json().database, health.json().redis, health.json().status], ['ok', 'unreachable', 'error'])
      const malformed = await app.inject({ method: 'POST', url: '/auth/login', remoteAddress: '203.0.113.50', payload: { api_client_key: 'nope', api_secret_key: 'nope' } })
      assert.equal(malformed.statusCode, 401)
      assert.equal(malformed.json().detail, 'Malformed API client key')
      // REDIS_FALLBACK_DIVISOR defaults to 2: 4 a minute becomes 2, and the header says so.
      assert.equal(malformed.headers['x-ratelimit-limit-minutely'], '2')
      // The lockout state is in process too: a wrong pair is judged, not a 500.
      const partner = await createPartner(test.store, { brandIds: [1] })
      const wrong = await app.inject({ method: 'POST', url: '/auth/login', payload: { api_client_key: partner.clientKey, api_secret_key: 'pas_' + 'b'.repeat(43) } })
      assert.equal(wrong.statusCode, 401)
      assert.equal(wrong.json().error_code, 'INVALID_CREDENTIALS')
      const login = await app.inject({ method: 'POST', url: '/auth/login', payload: { api_client_key: partner.clientKey, api_secret_key: partner.secretKey } })
      assert.equal(login.statusCode, 200, login.body)
      // Three requests in one minute; a round run again has a user (and login address) of its own.
      await inOneMinute(async (attempt) => {
        let token: string = login.json().access_token
        if (attempt > 0) {
          const fresh = await createPartner(test.store, { brandIds: [1] })
          const again = await app.inject({ method: 'POST', url: '/auth/login', remoteAddress: `203.0.113.${60 + attempt}`, payload: { api_client_key: fresh.clientKey, api_secret_key: fresh.secretKey } })
          assert.equal(again.statusCode, 200, again.body)
          token = again.json().access_token
        }
        const headers = bearer(token)
        const statuses = []
        for (let i = 0; i < 3; i++) statuses.push((await app.inject({ url: '/me', headers })).statusCode)
        assert.deepEqual(statuses, [200, 200, 429])
      })
    } finally {
      await app.close()
      await test.cleanup()
    }
  })
})
