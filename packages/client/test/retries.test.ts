import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { backoffDelayMs, DEFAULT_BACKOFF, InvalidCredentialsError, PartnerAnalyticsClient, RateLimitError, TooManyAttemptsError, parseRetryAfter } from '../src/index.js'
import { wallClock } from '../../../test/helpers/app.js'
import { awaitRoomInMinute, deleteRedisKeys, redisEnv, uniqueRedisPrefix } from '../../../test/helpers/redis.js'
import { recordingFetch, startServer, type RunningServer } from './server.js'

/** Token expiry, lockout and rate limiting against a real server (SQLite: the store is not what is tested). */
describe('client retries against a running server', () => {
  let server: RunningServer

  before(async () => { server = await startServer('sqlite') })
  after(async () => { await server.close() })

  it('on TOKEN_EXPIRED logs in again once and retries once (TOKEN_TTL_SECONDS=60)', async () => {
    // The server's wall clock stands still until moved: the token expires when the test says so.
    const time = wallClock(new Date().toISOString())
    const shortLived = await server.startSibling({ TOKEN_TTL_SECONDS: '60' }, { now: time.now })
    const recorder = recordingFetch()
    const client = new PartnerAnalyticsClient({ baseUrl: shortLived.baseUrl, clientKey: server.partner.clientKey, secretKey: server.partner.secretKey, fetch: recorder.fetch })
    const token = await client.login()
    assert.equal(token.expires_in, 60)
    time.advance(61_000)
    const me = await client.me()
    assert.deepEqual(me.brands.map((brand) => brand.brand_id), [1, 2])
    assert.deepEqual(recorder.calls, ['POST /auth/login', 'GET /me', 'POST /auth/login', 'GET /me'])
  })

  it('shares one re-login among the calls that rode the expired token, its refusal included, and logs in anew for a later call', async () => {
    const time = wallClock(new Date().toISOString())
    const shortLived = await server.startSibling({ TOKEN_TTL_SECONDS: '60' }, { now: time.now })
    const { access_token: accessToken } = await new PartnerAnalyticsClient({ baseUrl: shortLived.baseUrl, clientKey: server.partner.clientKey, secretKey: server.partner.secretKey }).login()
    // The second call's expired answer is held back until the first call's re-login has been refused.
    let release: () => void = () => {}
    const held = new Promise<void>((resolve) => { release = resolve })
    const calls: string[] = []
    let mes = 0
    const client = new PartnerAnalyticsClient({
      baseUrl: shortLived.baseUrl,
      clientKey: server.partner.clientKey,
      secretKey: 'sk_wrong_secret_after_a_rotation',
      accessToken,
      fetch: async (input, init) => {
        const url = new URL(String(input))
        calls.push(`${init?.method ?? 'GET'} ${url.pathname}`)
        const answer = await fetch(input, init)
        if (url.pathname === '/me' && ++mes === 2) await held
        return answer
      },
    })
    time.advance(61_000)
    const first = client.me().catch((caught: unknown) => caught)
    const second = client.me().catch((caught: unknown) => caught)
    const firstError = await first
    release()
    const secondError = await second
    assert.ok(firstError instanceof InvalidCredentialsError)
    assert.equal(secondError, firstError, 'the second call is told the same refusal, not sent to log in again')
    assert.deepEqual(calls, ['GET /me', 'GET /me', 'POST /auth/login'])
    // A call made after the refusal is a new question: it logs in again (and is refused again here).
    assert.ok(await client.me().catch((caught: unknown) => caught) instanceof InvalidCredentialsError)
    assert.deepEqual(calls.slice(3), ['GET /me', 'POST /auth/login'])
  })

  it('backs off on 429 honouring Retry-After, a bounded number of times (RATE_LIMIT_PER_MINUTE=2)', async () => {
    const limited = await server.startSibling({ RATE_LIMIT_PER_MINUTE: '2' })
    const recorder = recordingFetch()
    const waits: number[] = []
    const retryAfters: Array<number | undefined> = []
    const client = new PartnerAnalyticsClient({
      baseUrl: limited.baseUrl,
      clientKey: server.partner.clientKey,
      secretKey: server.partner.secretKey,
      fetch: recorder.fetch,
      backoff: { maxAttempts: 3, baseDelayMs: 100, random: () => 0.5 },
      // Record instead of waiting up to a minute for the window: the policy is what is tested here.
      sleep: async (ms) => { waits.push(ms) },
      onRetry: ({ error }) => { retryAfters.push((error as RateLimitError).retryAfterSeconds) },
    })
    await client.login()
    // Fixed windows: the three calls (a few milliseconds) must fall in one clock minute; a margin
    // of 10 s leaves room for a busy machine.
    await awaitRoomInMinute(10_000)
    await client.me()
    await client.me()
    const error = await client.me().catch((caught: unknown) => caught)
    assert.ok(error instanceof RateLimitError)
    assert.equal(error.status, 429)
    assert.equal(error.errorCode, 'RATE_LIMIT_EXCEEDED')
    assert.ok((error.retryAfterSeconds ?? 0) >= 1)
    // Three attempts of the third call, two waits between them: Retry-After plus 75 ms, then 150 ms of jitter.
    assert.deepEqual(recorder.calls.slice(-3), ['GET /me', 'GET /me', 'GET /me'])
    assert.equal(waits.length, 2)
    assert.deepEqual(waits, [(retryAfters[0] ?? 0) * 1000 + 75, (retryAfters[1] ?? 0) * 1000 + 150])
  })

  it('waits out a TOO_MANY_ATTEMPTS lockout (Retry-After) and then logs in', async () => {
    // The lockout state lives in Redis under a prefix of this test's own, and lasts 60 s: still in
    // force at the client's first attempt however slow the machine.
    const prefix = uniqueRedisPrefix('client-lockout')
    const strict = await server.startSibling({ LOGIN_MAX_FAILURES: '1', LOGIN_LOCKOUT_SECONDS: '60', ...redisEnv(prefix) })
    try {
      // One wrong secret for this key locks it.
      await fetch(`${strict.baseUrl}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ api_client_key: server.partner.clientKey, api_secret_key: 'pas_' + 'C'.repeat(43) }) })
      const recorder = recordingFetch()
      const waits: number[] = []
      const retryAfters: Array<number | undefined> = []
      const client = new PartnerAnalyticsClient({
        baseUrl: strict.baseUrl,
        clientKey: server.partner.clientKey,
        secretKey: server.partner.secretKey,
        fetch: recorder.fetch,
        backoff: { maxAttempts: 4, baseDelayMs: 50, random: () => 0 },
        onRetry: ({ error }) => { retryAfters.push((error as TooManyAttemptsError).retryAfterSeconds) },
        // While the client waits, the lockout ends (its keys expire: here they are removed).
        sleep: async (ms) => { waits.push(ms); await deleteRedisKeys(prefix) },
      })
      const token = await client.login()
      assert.equal(token.token_type, 'bearer')
      assert.deepEqual(recorder.calls, ['POST /auth/login', 'POST /auth/login'])
      const retryAfter = retryAfters[0] ?? 0
      assert.ok(retryAfter >= 30 && retryAfter <= 60, `Retry-After ${retryAfter}`)
      // One wait: Retry-After, plus the least jitter (random 0: half the 50 ms base delay).
      assert.deepEqual(waits, [retryAfter * 1000 + 25])
    } finally {
      await deleteRedisKeys(prefix)
    }
  })

  it('gives up on TOO_MANY_ATTEMPTS with a typed error after the last attempt', async () => {
    const strict = await server.startSibling({ LOGIN_MAX_FAILURES: '1', LOGIN_LOCKOUT_SECONDS: '600' })
    await fetch(`${strict.baseUrl}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ api_client_key: server.partner.clientKey, api_secret_key: 'pas_' + 'D'.repeat(43) }) })
    const recorder = recordingFetch()
    const waits: number[] = []
    const client = new PartnerAnalyticsClient({
      baseUrl: strict.baseUrl,
      clientKey: server.partner.clientKey,
      secretKey: server.partner.secretKey,
      fetch: recorder.fetch,
      backoff: { maxAttempts: 2 },
      sleep: async (ms) => { waits.push(ms) },
    })
    const error = await client.me().catch((caught: unknown) => caught)
    assert.ok(error instanceof TooManyAttemptsError)
    assert.equal(error.status, 401)
    assert.ok((error.retryAfterSeconds ?? 0) > 500)
    assert.deepEqual(recorder.calls, ['POST /auth/login', 'POST /auth/login'])
    assert.equal(waits.length, 1)
  })
})

describe('backoffDelayMs', () => {
  const options = { ...DEFAULT_BACKOFF, baseDelayMs: 500, maxDelayMs: 4000 }

  it('doubles per retry up to the ceiling, with half of each delay random', () => {
    assert.deepEqual([1, 2, 3, 4, 5].map((retry) => backoffDelayMs(retry, undefined, { ...options, random: () => 0 })), [250, 500, 1000, 2000, 2000])
    assert.deepEqual([1, 2, 3, 4, 5].map((retry) => backoffDelayMs(retry, undefined, { ...options, random: () => 0.999999 })), [500, 1000, 2000, 4000, 4000])
  })

  it('adds the jitter on top of Retry-After, never below it', () => {
    assert.equal(backoffDelayMs(1, 7, { ...options, random: () => 0 }), 7250)
    assert.equal(backoffDelayMs(2, 7, { ...options, random: () => 0.5 }), 7750)
  })

  it('reads Retry-After as seconds or as an HTTP date', () => {
    assert.equal(parseRetryAfter('42'), 42)
    assert.equal(parseRetryAfter(new Date(Date.UTC(2030, 0, 1, 0, 0, 30)).toUTCString(), Date.UTC(2030, 0, 1)), 30)
    assert.equal(parseRetryAfter(null), undefined)
    assert.equal(parseRetryAfter('soon'), undefined)
  })
})
