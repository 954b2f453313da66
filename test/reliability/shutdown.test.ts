import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { request as httpRequest } from 'node:http'
import { fileURLToPath } from 'node:url'
import { SHUTDOWN_GRACE_MS } from '../../src/cli/commands/serve.js'
import { TEST_JWT_SECRET } from '../helpers/app.js'
import { insertBrandsWithAccounts } from '../helpers/fixtures.js'
import { createPartner, type TestPartner } from '../helpers/partners.js'
import { exitOf, freePort, startPrivatePostgres, startPrivateRedis, waitFor, type PrivatePostgres, type PrivateRedis } from '../helpers/processes.js'
import { createTestStore, type TestStore } from '../helpers/stores.js'

/**
 * Shutdown is bounded by the grace period whatever the stores do (issue 11.2): the real
 * `partner-analytics serve` in a child process, on a PostgreSQL (and a Redis) the test runs and
 * freezes itself, gets SIGTERM while a request waits on the frozen database, and exits by
 * SHUTDOWN_GRACE_MS: the exit itself says which way — 0 when everything closed, 1 and "shutdown
 * grace period over" when the service's own grace timer ended it — so the test's wait for the
 * exit is only a generous bound (a busy machine), not a measure. Before: the process exited only
 * once the database answered again (30 s in the probe).
 */

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url))
const TSX = import.meta.resolve('tsx')
/** Past the grace period with room for a busy machine; the stores stay frozen past it, so without the grace timer no exit comes. */
const EXIT_BOUND_MS = SHUTDOWN_GRACE_MS + 20_000

interface Served {
  child: ChildProcessWithoutNullStreams
  port: number
  stdout: () => string
}

async function serve (env: Record<string, string>): Promise<Served> {
  const port = await freePort()
  const child = spawn(process.execPath, ['--import', TSX, MAIN, 'serve'], {
    env: { PATH: process.env.PATH ?? '', PORT: String(port), LOG_LEVEL: 'info', NODE_ENV: 'production', JWT_SECRET: TEST_JWT_SECRET, RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_PER_HOUR: '0', ...env },
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString() })
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
  await waitFor(`serve listening (stderr: ${stderr})`, () => {
    if (child.exitCode !== null) throw new Error(`serve exited early: ${stderr}`)
    return stdout.includes('Server listening')
  }, 120_000)
  return { child, port, stdout: () => stdout }
}

async function loginOver (port: number, partner: TestPartner): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${port}/auth/login`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ api_client_key: partner.clientKey, api_secret_key: partner.secretKey }),
  })
  assert.equal(response.status, 200)
  return ((await response.json()) as { access_token: string }).access_token
}

describe('shutdown with hung stores (serve in a child process)', () => {
  let postgres: PrivatePostgres
  let redis: PrivateRedis
  let test: TestStore
  let partner: TestPartner
  const children: ChildProcessWithoutNullStreams[] = []

  before(async () => {
    postgres = await startPrivatePostgres()
    redis = await startPrivateRedis()
    test = await createTestStore('postgres', postgres.url)
    await insertBrandsWithAccounts(test.store.db, [{ brand_id: 1 }])
    partner = await createPartner(test.store, { brandIds: [1] })
  })
  after(async () => {
    postgres?.thaw()
    redis?.thaw()
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL')
    await test?.cleanup()
    await postgres?.close()
    await redis?.close()
  })

  it(`exits within ${SHUTDOWN_GRACE_MS / 1000} s of SIGTERM while a request waits on a frozen PostgreSQL, having answered it`, async (t) => {
    const served = await serve({ DATABASE_URL: test.databaseUrl })
    children.push(served.child)
    const token = await loginOver(served.port, partner)
    postgres.freeze()
    try {
      const waiting = fetch(`http://127.0.0.1:${served.port}/analytics/?type=agg`, { headers: { authorization: `Bearer ${token}` } })
      // The request has reached the server (its log says so) before the signal: on a busy machine
      // it may not have within a fixed pause, and a SIGTERM before it would refuse it instead.
      await waitFor('the request received by serve', () => /"msg":"incoming request"[^\n]*"url":"\/analytics\/\?type=agg"|"url":"\/analytics\/\?type=agg"[^\n]*"msg":"incoming request"/.test(served.stdout()), 10_000)
      await new Promise((resolve) => setTimeout(resolve, 300))
      const signalled = Date.now()
      served.child.kill('SIGTERM')
      const answer = await waiting
      const answeredMs = Date.now() - signalled
      const code = await exitOf(served.child, EXIT_BOUND_MS)
      const exitedMs = Date.now() - signalled
      t.diagnostic(`request answered ${answeredMs} ms after SIGTERM (status ${answer.status}); exit ${String(code)} after ${exitedMs} ms`)
      assert.equal(answer.status, 500)
      assert.equal(((await answer.json()) as { detail: string }).detail, 'Error fetching analytics')
      assert.notEqual(code, undefined, `serve still running ${EXIT_BOUND_MS} ms after SIGTERM`)
      assertCleanOrBounded(code, served.stdout())
    } finally {
      postgres.thaw()
    }
  })

  it(`exits within ${SHUTDOWN_GRACE_MS / 1000} s of SIGTERM with PostgreSQL and Redis frozen and a client that never finishes its request`, async (t) => {
    const served = await serve({ DATABASE_URL: test.databaseUrl, REDIS_URL: redis.url })
    children.push(served.child)
    await loginOver(served.port, partner)
    postgres.freeze()
    redis.freeze()
    try {
      // A login whose body never completes: only the grace period can end it.
      const stuck = httpRequest({ host: '127.0.0.1', port: served.port, method: 'POST', path: '/auth/login', agent: false, headers: { 'content-type': 'application/json', 'content-length': 200 } })
      stuck.on('error', () => {})
      stuck.write('{"api_client_key":')
      await new Promise((resolve) => setTimeout(resolve, 300))
      const signalled = Date.now()
      served.child.kill('SIGTERM')
      const code = await exitOf(served.child, EXIT_BOUND_MS)
      const exitedMs = Date.now() - signalled
      t.diagnostic(`exit ${String(code)} after ${exitedMs} ms (information, not asserted)`)
      assert.notEqual(code, undefined, `serve still running ${EXIT_BOUND_MS} ms after SIGTERM`)
      // The frozen stores hold their sockets past the cut of the stuck client (1 s before the end
      // of the grace period): what ends the process is the grace timer itself — exit 1, logged —
      // not a later close of the stores, whatever the machine's speed (timers keep their order).
      assert.match(served.stdout(), /shutting down: finishing in-flight requests/)
      assert.equal(code, 1, served.stdout())
      assert.match(served.stdout(), /shutdown grace period over: exiting with connections still open/)
      stuck.destroy()
    } finally {
      postgres.thaw()
      redis.thaw()
    }
  })
})

/** Exit 0 when everything closed in time; 1 (logged) when a store still held its connections at the end of the grace period. */
function assertCleanOrBounded (code: number | null | undefined, stdout: string): void {
  assert.match(stdout, /shutting down: finishing in-flight requests/)
  if (code === 0) return
  assert.equal(code, 1)
  assert.match(stdout, /shutdown grace period over: exiting with connections still open/)
}
