import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createSigner } from 'fast-jwt'
import { SHUTDOWN_GRACE_MS } from '../../src/cli/commands/serve.js'
import { rotateCredentials, setUserDisabled } from '../../src/services/users/users.service.js'
import { TEST_JWT_SECRET } from '../helpers/app.js'
import { buildPackage, serveBuilt, type BuiltPackage, type ServedProcess } from '../helpers/built-package.js'
import { insertBrandsWithAccounts } from '../helpers/fixtures.js'
import { call, type Answer } from '../helpers/http-calls.js'
import { createPartner, type TestPartner } from '../helpers/partners.js'
import { parseScrape, sampleSum } from '../helpers/prometheus.js'
import { exitOf, freePort, sleep, waitFor } from '../helpers/processes.js'
import { TEST_REDIS_URL, deleteRedisKeys, inOneClockWindow, uniqueRedisPrefix } from '../helpers/redis.js'
import { createTestStore, type TestStore } from '../helpers/stores.js'

/**
 * `serve --workers 2` as deployed (the compiled package, plain node, its own working directory),
 * on one SQLite file and one Redis: every request below goes on a connection of its own, so the
 * cluster deals them to both workers — which the test proves from the workers' own log lines (the
 * pid of the line that logged each request id). The state the workers share must hold across
 * them exactly as across instances: the authentication matrix, the rate limit, the lockout, a
 * disabled user; a killed worker is replaced; SIGTERM stops the group within the bound.
 */

const PER_MINUTE = 20
const MAX_FAILURES = 3
const ROUTES = ['/me', '/analytics/', '/posts']
/** Idle workers have nothing to drain: well within SHUTDOWN_GRACE_MS (the bound a hung one is killed at). */
const IDLE_EXIT_MS = 5000

const NOT_AUTHENTICATED = { status: 401, code: 'INVALID_CREDENTIALS', detail: 'Not authenticated', challenge: 'Bearer' }
const TOKEN_INVALID = { status: 401, code: 'TOKEN_INVALID', detail: 'Could not validate credentials', challenge: 'Bearer error="invalid_token"' }
const TOKEN_EXPIRED = { status: 401, code: 'TOKEN_EXPIRED', detail: 'Token has expired', challenge: 'Bearer error="invalid_token"' }
const USER_DISABLED = { status: 403, code: 'USER_DISABLED', detail: 'User account is disabled', challenge: undefined }

const b64 = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url')

describe('serve --workers 2 (the built package, Redis shared)', () => {
  let built: BuiltPackage
  let test: TestStore
  let served: ServedProcess
  let base: string
  let metricsUrl: string
  const prefix = uniqueRedisPrefix('workers')
  const tokens: Record<string, string> = {}
  let partner: TestPartner

  /** The pid of the process that logged `requestId` (its "incoming request" line). */
  const pidOf = async (requestId: string): Promise<number> => {
    let pid: number | undefined
    await waitFor(`log line of ${requestId}`, () => {
      pid = served.logLines().find((line) => line.request_id === requestId)?.pid as number | undefined
      return pid !== undefined
    }, 5000)
    return pid as number
  }
  /** A call carrying a request id of its own, and the pid that answered it. */
  const traced = async (path: string, options: Parameters<typeof call>[1] = {}): Promise<Answer & { pid: number }> => {
    const requestId = randomUUID()
    const answer = await call(`${base}${path}`, { ...options, headers: { ...options.headers, 'x-request-id': requestId } })
    return { ...answer, pid: await pidOf(requestId) }
  }
  const login = async (pair: Pick<TestPartner, 'clientKey' | 'secretKey'>): Promise<Answer & { pid: number }> =>
    await traced('/auth/login', { method: 'POST', body: { api_client_key: pair.clientKey, api_secret_key: pair.secretKey } })
  const tokenOf = async (pair: TestPartner): Promise<string> => {
    const answer = await login(pair)
    assert.equal(answer.status, 200, answer.body)
    return answer.json<{ access_token: string }>().access_token
  }
  const workerPids = (): number[] => [...new Set(served.logLines().filter((line) => String(line.msg).startsWith('Server listening')).map((line) => Number(line.pid)))]

  before(async () => {
    built = await buildPackage()
    test = await createTestStore('sqlite')
    await insertBrandsWithAccounts(test.store.db, [{ brand_id: 1 }, { brand_id: 2 }])
    partner = await createPartner(test.store, { brandIds: [1] })
    const port = await freePort()
    const metricsPort = await freePort()
    base = `http://127.0.0.1:${port}`
    metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`
    served = await serveBuilt(built.main, ['--workers', '2'], {
      DATABASE_URL: test.databaseUrl,
      NODE_ENV: 'production',
      JWT_SECRET: TEST_JWT_SECRET,
      PORT: String(port),
      METRICS_PORT: String(metricsPort),
      REDIS_URL: TEST_REDIS_URL,
      REDIS_KEY_PREFIX: prefix,
      RATE_LIMIT_PER_MINUTE: String(PER_MINUTE),
      RATE_LIMIT_PER_HOUR: '0',
      LOGIN_MAX_FAILURES: String(MAX_FAILURES),
    }, (stdout) => stdout.includes('2 workers listening'))

    const now = Math.floor(Date.now() / 1000)
    const claims = { sub: partner.userId, cid: partner.clientKey }
    const sign = (payload: Record<string, unknown>, key = TEST_JWT_SECRET) => createSigner({ key, algorithm: 'HS256' })(payload)
    tokens.garbage = 'not.a.jwt'
    tokens.otherSecret = sign({ ...claims, exp: now + 600 }, 'another-secret-another-secret-0123456789')
    tokens.algNone = `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ ...claims, exp: now + 600 })}.`
    tokens.expired = sign({ ...claims, iat: now - 7200, exp: now - 3600 })
    tokens.unknownUser = sign({ sub: 'usr_000000000000000000000000', cid: partner.clientKey, exp: now + 600 })
    const rotated = await createPartner(test.store, { brandIds: [1] })
    tokens.rotated = await tokenOf(rotated)
    await rotateCredentials(test.store.db, rotated.userId)
    const disabled = await createPartner(test.store, { brandIds: [1] })
    tokens.disabled = await tokenOf(disabled)
    await setUserDisabled(test.store.db, disabled.userId, true)
  })
  after(async () => {
    await served?.kill()
    await test?.cleanup()
    built?.cleanup()
    await deleteRedisKeys(prefix)
  })

  it('starts two workers, and connections go to both', async () => {
    assert.equal(workerPids().length, 2)
    const pids = new Set<number>()
    for (let i = 0; i < 6; i++) {
      const answer = await traced('/health')
      assert.equal(answer.status, 200)
      pids.add(answer.pid)
    }
    assert.deepEqual([...pids].sort(), workerPids().sort())
  })

  const CASES: Array<[string, () => Record<string, string>, typeof NOT_AUTHENTICATED | typeof USER_DISABLED]> = [
    ['no Authorization header', () => ({}), NOT_AUTHENTICATED],
    ['another scheme', () => ({ authorization: 'Basic dXNlcjpwYXNz' }), NOT_AUTHENTICATED],
    ['Bearer without a token', () => ({ authorization: 'Bearer' }), NOT_AUTHENTICATED],
    ['a malformed token', () => ({ authorization: `Bearer ${tokens.garbage ?? ''}` }), TOKEN_INVALID],
    ['a token signed with another secret', () => ({ authorization: `Bearer ${tokens.otherSecret ?? ''}` }), TOKEN_INVALID],
    ['alg none', () => ({ authorization: `Bearer ${tokens.algNone ?? ''}` }), TOKEN_INVALID],
    ['a token of an unknown user', () => ({ authorization: `Bearer ${tokens.unknownUser ?? ''}` }), TOKEN_INVALID],
    ['a token of a rotated key pair', () => ({ authorization: `Bearer ${tokens.rotated ?? ''}` }), TOKEN_INVALID],
    ['an expired token', () => ({ authorization: `Bearer ${tokens.expired ?? ''}` }), TOKEN_EXPIRED],
    ['a token of a disabled user', () => ({ authorization: `Bearer ${tokens.disabled ?? ''}` }), USER_DISABLED],
  ]
  it('answers the authentication matrix alike on both workers, on every partner route', async () => {
    for (const [label, headers, expected] of CASES) {
      const pids = new Set<number>()
      // Each route twice: consecutive connections go to both workers.
      for (const route of [...ROUTES, ...ROUTES]) {
        const answer = await traced(route, { headers: headers() })
        pids.add(answer.pid)
        const body = answer.json()
        assert.deepEqual([answer.status, body.error_code, body.detail], [expected.status, expected.code, expected.detail], `${label} on ${route}`)
        assert.equal(answer.headers['www-authenticate'], expected.challenge, `${label} on ${route}`)
        assert.equal(answer.headers['x-ratelimit-limit-minutely'], undefined, `${label} on ${route}: refused before the limiter`)
      }
      assert.equal(pids.size, 2, `${label}: answered by both workers`)
    }
  })

  it(`holds the per-user limit across workers: ${PER_MINUTE} a minute, then 429 from either`, async () => {
    // All of it in one clock minute: a run the minute turned under (a busy machine; the next
    // minute counts from 0) goes again with a partner of its own (test/helpers/redis.ts).
    await inOneClockWindow(60_000, 10_000, async () => {
      const limited = await createPartner(test.store, { brandIds: [1] })
      const token = await tokenOf(limited)
      const statuses: number[] = []
      const remaining: string[] = []
      const pids = new Set<number>()
      for (let i = 0; i < PER_MINUTE + 2; i++) {
        const answer = await traced('/me', { headers: { authorization: `Bearer ${token}` } })
        statuses.push(answer.status)
        remaining.push(String(answer.headers['x-ratelimit-remaining-minutely']))
        pids.add(answer.pid)
      }
      assert.deepEqual(statuses, [...Array<number>(PER_MINUTE).fill(200), 429, 429])
      assert.deepEqual(remaining, [...Array.from({ length: PER_MINUTE }, (_, i) => String(PER_MINUTE - 1 - i)), '0', '0'])
      assert.equal(pids.size, 2)
    })
  })

  it(`locks a client key out across workers after ${MAX_FAILURES} failures, even for the right secret`, async () => {
    const target = await createPartner(test.store, { brandIds: [1] })
    const wrong = { clientKey: target.clientKey, secretKey: `pas_${'x'.repeat(43)}` }
    const pids = new Set<number>()
    for (let i = 0; i < MAX_FAILURES; i++) {
      const answer = await login(wrong)
      assert.deepEqual([answer.status, answer.json().error_code], [401, 'INVALID_CREDENTIALS'])
      pids.add(answer.pid)
    }
    for (let i = 0; i < 2; i++) {
      const answer = await login(target)
      assert.deepEqual([answer.status, answer.json().error_code], [401, 'TOO_MANY_ATTEMPTS'])
      pids.add(answer.pid)
    }
    assert.equal(pids.size, 2)
  })

  it('stops a disabled user on every worker within the contract\'s 5 s', async () => {
    const user = await createPartner(test.store, { brandIds: [1] })
    const token = await tokenOf(user)
    for (let i = 0; i < 2; i++) assert.equal((await traced('/me', { headers: { authorization: `Bearer ${token}` } })).status, 200)
    await setUserDisabled(test.store.db, user.userId, true)
    await sleep(5000)
    const pids = new Set<number>()
    for (let i = 0; i < 4; i++) {
      const answer = await traced('/me', { headers: { authorization: `Bearer ${token}` } })
      assert.equal(answer.status, 403)
      pids.add(answer.pid)
    }
    assert.equal(pids.size, 2)
  })

  it('serves one scrape of the whole group on METRICS_PORT, and no /metrics on the public port', async () => {
    const before = (await call(metricsUrl)).body
    const count = (text: string): number => sampleSum(parseScrape(text), 'pa_http_requests_total', { route: '/health' })
    const pids = new Set<number>()
    for (let i = 0; i < 6; i++) pids.add((await traced('/health')).pid)
    assert.equal(pids.size, 2)
    const answer = await call(metricsUrl)
    assert.equal(answer.status, 200)
    assert.match(String(answer.headers['content-type']), /^text\/plain/)
    // Both workers' requests in one number: six more than before.
    assert.equal(count(answer.body) - count(before), 6)
    assert.equal(sampleSum(parseScrape(answer.body), 'pa_workers'), 2)
    assert.equal((await call(`${base}/metrics`)).status, 404)
  })

  it('replaces a worker that dies, and keeps answering', async () => {
    const [victim] = workerPids()
    assert.ok(victim !== undefined)
    process.kill(victim, 'SIGKILL')
    await waitFor('a replacement worker listens', () => served.logLines().some((line) => line.msg === 'replacement worker listening'), 30_000)
    const died = served.logLines().find((line) => line.msg === 'worker died; replacing it')
    assert.equal(died?.worker_pid, victim)
    assert.equal(died?.signal, 'SIGKILL')
    const pids = new Set<number>()
    for (let i = 0; i < 6; i++) {
      const answer = await traced('/health')
      assert.equal(answer.status, 200)
      pids.add(answer.pid)
    }
    assert.equal(pids.size, 2)
    assert.ok(!pids.has(victim))
  })

  it(`stops the primary and every worker within ${SHUTDOWN_GRACE_MS / 1000} s of SIGTERM (idle: at once, none killed), exit code 0`, async () => {
    const pids = workerPids()
    served.child.kill('SIGTERM')
    // Idle workers stop on their own, long before the primary would kill them at the bound.
    assert.equal(await exitOf(served.child, IDLE_EXIT_MS), 0, served.stderr())
    assert.ok(!served.stdout().includes('grace period over'))
    for (const pid of pids) {
      assert.throws(() => process.kill(pid, 0), /ESRCH/, `worker ${pid} still running`)
    }
  })

  it('refuses more than one worker without REDIS_URL, with one line naming it', () => {
    const cwd = mkdtempSync(join(tmpdir(), 'pa-noredis-'))
    try {
      const result = spawnSync(process.execPath, [built.main, 'serve', '--workers', '2'], { cwd, env: { PATH: process.env.PATH ?? '', DATABASE_URL: test.databaseUrl, JWT_SECRET: TEST_JWT_SECRET }, encoding: 'utf8', timeout: 60_000 })
      assert.equal(result.status, 78)
      assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr)
      assert.match(result.stderr, /--workers 2 needs REDIS_URL/)
    } finally {
      rmSync(cwd, { recursive: true, force: true })
    }
  })
})
