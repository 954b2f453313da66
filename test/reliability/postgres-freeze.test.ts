import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { createStore, type Store } from '../../src/storage/db.js'
import { SERVING_DEADLINES } from '../../src/storage/deadlines.js'
import { HEALTH_PROBE_TIMEOUT_MS } from '../../src/services/health.service.js'
import { buildTestApp } from '../helpers/app.js'
import { insertBrandsWithAccounts } from '../helpers/fixtures.js'
import { bearer, createPartner, loginToken } from '../helpers/partners.js'
import { startPrivatePostgres, waitFor, type PrivatePostgres } from '../helpers/processes.js'
import { createTestStore, type TestStore } from '../helpers/stores.js'

/**
 * A hung PostgreSQL (issue 11.1): the test runs its own cluster and freezes every process of it
 * with SIGSTOP, so connections stay open and nothing answers, as when the server hangs. The app
 * runs on a store opened exactly as `serve` opens it (SERVING_DEADLINES). Requests already in
 * flight and new ones are answered with the contract's 500 (acquire + query deadline, 3 s),
 * /health and /health/ready with 503 `database: unreachable` (their probe bound, 1 s),
 * /health/live with 200, and everything recovers once the server runs again, without a restart.
 * The cluster stays frozen until every answer is in, so an answer at all is one the service's
 * own deadline gave: the test asserts those deadlines' documented values and the answers, and
 * waits for them with a generous bound (a busy machine) without timing them. Before the
 * deadlines, the requests waited for as long as the freeze lasted.
 */

/** A generous bound for an answer that must come at all; without the deadlines none comes while frozen. */
const ANSWER_BOUND_MS = 30_000

interface Timed {
  ms: number
  response: LightMyRequestResponse | undefined
}

/** The answer and how long it took, or no answer once `limitMs` has passed (the request may still be waiting). */
async function timed (request: Promise<LightMyRequestResponse>, limitMs: number): Promise<Timed> {
  const started = Date.now()
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<undefined>((resolve) => { timer = setTimeout(() => resolve(undefined), limitMs) })
  const response = await Promise.race([request, late])
  clearTimeout(timer)
  return { ms: Date.now() - started, response }
}

function assertInternalError (answer: Timed, detail: string, label: string): void {
  assert.ok(answer.response !== undefined, `${label}: no answer within ${ANSWER_BOUND_MS} ms`)
  assert.equal(answer.response.statusCode, 500, `${label}: ${answer.response.body}`)
  const body = answer.response.json()
  assert.deepEqual(body, {
    detail,
    error_code: 'INTERNAL_SERVER_ERROR',
    status_code: 500,
    status: 'error',
    timestamp: body.timestamp,
    request_id: answer.response.headers['x-request-id'],
  }, label)
}

describe('PostgreSQL frozen (SIGSTOP of the whole cluster)', () => {
  let server: PrivatePostgres
  let test: TestStore
  let serving: Store
  let app: FastifyInstance
  let headers: { authorization: string }

  before(async () => {
    server = await startPrivatePostgres()
    test = await createTestStore('postgres', server.url)
    await insertBrandsWithAccounts(test.store.db, [{ brand_id: 1, accounts: [{ platform: 'fb', account_id: 10 }] }])
    serving = createStore({ kind: 'postgres', url: server.url, schema: test.schema }, { deadlines: SERVING_DEADLINES })
    app = await buildTestApp(serving, { RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_PER_HOUR: '0' })
    const partner = await createPartner(test.store, { brandIds: [1] })
    headers = bearer(await loginToken(app, partner))
  })
  after(async () => {
    server?.thaw()
    await app?.close()
    await serving?.destroy()
    await test?.cleanup()
    await server?.close()
  })

  it('has the documented deadlines: 1 s to get a connection, 2 s for a query, 1 s for a health probe', () => {
    assert.deepEqual([SERVING_DEADLINES.acquireMs, SERVING_DEADLINES.queryMs, SERVING_DEADLINES.statementMs, HEALTH_PROBE_TIMEOUT_MS], [1000, 2000, 2000, 1000])
  })

  it('answers requests in flight and new ones with the 500 body, /health and /health/ready with 503, while frozen, and recovers after', async (t) => {
    const routes = [
      { url: '/analytics/?type=agg&since=2026-01-01&until=2026-01-31', detail: 'Error fetching analytics' },
      { url: '/posts?since=2026-01-01&until=2026-01-31', detail: 'Error fetching posts' },
      { url: '/me', detail: 'Internal server error' },
    ]
    // Warm: the pool holds open connections when the server stops answering.
    for (const route of routes) assert.equal((await app.inject({ url: route.url, headers })).statusCode, 200)

    server.freeze()
    try {
      const limit = ANSWER_BOUND_MS
      // Ten requests in flight at once (the pool's size), then ten more while those still wait.
      const first = Array.from({ length: 10 }, async (_, i) => {
        const route = routes[i % routes.length] as (typeof routes)[number]
        return { route, answer: await timed(app.inject({ url: route.url, headers }), limit) }
      })
      await new Promise((resolve) => setTimeout(resolve, 300))
      const second = Array.from({ length: 10 }, async (_, i) => {
        const route = routes[i % routes.length] as (typeof routes)[number]
        return { route, answer: await timed(app.inject({ url: route.url, headers }), limit) }
      })
      const health = timed(app.inject({ url: '/health' }), limit)
      const ready = timed(app.inject({ url: '/health/ready' }), limit)
      const live = timed(app.inject({ url: '/health/live' }), limit)
      const login = timed(app.inject({ method: 'POST', url: '/auth/login', payload: { api_client_key: 'pak_' + 'A'.repeat(24), api_secret_key: 'pas_' + 'b'.repeat(43) } }), limit)

      const answers = await Promise.all([...first, ...second])
      for (const [i, { route, answer }] of answers.entries()) {
        assertInternalError(answer, route.detail, `request ${i} ${route.url}`)
      }
      const [healthAnswer, readyAnswer, liveAnswer] = await Promise.all([health, ready, live])
      t.diagnostic(`frozen (information, not asserted): in-flight requests answered in ${answers.slice(0, 10).map(({ answer }) => answer.ms).join(', ')} ms; ` +
        `new ones in ${answers.slice(10).map(({ answer }) => answer.ms).join(', ')} ms; /health in ${healthAnswer.ms} ms; ` +
        `/health/ready in ${readyAnswer.ms} ms; /health/live in ${liveAnswer.ms} ms`)
      assert.ok(healthAnswer.response !== undefined, '/health did not answer within its bound')
      assert.equal(healthAnswer.response.statusCode, 503)
      assert.deepEqual([healthAnswer.response.json().status, healthAnswer.response.json().database], ['error', 'unreachable'])
      // The balancer's probe takes the instance out of rotation, within its bound.
      assert.ok(readyAnswer.response !== undefined, '/health/ready did not answer within its bound')
      assert.equal(readyAnswer.response.statusCode, 503)
      assert.equal(readyAnswer.response.body, '{"status":"error","database":"unreachable"}')
      // The process itself answers: nothing for a liveness probe to restart.
      assert.ok(liveAnswer.response !== undefined, '/health/live did not answer')
      assert.equal(liveAnswer.response.statusCode, 200)
      assert.equal(liveAnswer.response.body, '{"status":"ok"}')
      assertInternalError(await login, 'Internal server error', 'login')
    } finally {
      server.thaw()
    }

    // Recovery without a restart: the stale connections finish (or are replaced) and requests succeed.
    await waitFor('/health answers 200 again', async () => (await app.inject({ url: '/health' })).statusCode === 200, 15_000)
    assert.equal((await app.inject({ url: '/health/ready' })).statusCode, 200)
    await waitFor('every route answers 200 again', async () => {
      for (const route of routes) if ((await app.inject({ url: route.url, headers })).statusCode !== 200) return false
      return true
    }, 15_000)
  })
})
