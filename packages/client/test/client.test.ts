import { createServer as createHttpServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import assert from 'node:assert/strict'
import { setUserDisabled } from '../../../src/services/users/users.service.js'
import { createPartner } from '../../../test/helpers/partners.js'
import { DIALECTS } from '../../../test/helpers/stores.js'
import {
  ForbiddenError, InvalidCredentialsError, NetworkError, NotFoundError, PartnerAnalyticsClient, ServerError, TokenInvalidError, UserDisabledError, ValidationError, BadRequestError,
} from '../src/index.js'
import { closedPort, silentServer } from './export-helpers.js'
import { DATASET_START, expectedDailyGroups, POST_COUNT, recordingFetch, startServer, type RunningServer } from './server.js'

const SINCE = DATASET_START
const UNTIL = '2026-02-09'

for (const dialect of DIALECTS) {
  describe(`client against a running server (${dialect})`, () => {
    let server: RunningServer

    before(async () => { server = await startServer(dialect) })
    after(async () => { await server.close() })

    const clientFor = (overrides: Partial<ConstructorParameters<typeof PartnerAnalyticsClient>[0]> = {}) => new PartnerAnalyticsClient({
      baseUrl: server.baseUrl, clientKey: server.partner.clientKey, secretKey: server.partner.secretKey, ...overrides,
    })

    it('logs in lazily once and reads /me with the token', async () => {
      const recorder = recordingFetch()
      const client = clientFor({ fetch: recorder.fetch })
      const me = await client.me()
      assert.deepEqual(me.brands.map((brand) => brand.brand_id), [1, 2])
      await client.me()
      assert.deepEqual(recorder.calls, ['POST /auth/login', 'GET /me', 'GET /me'])
    })

    it('iterates every brand across /me pages', async () => {
      const recorder = recordingFetch()
      const ids: number[] = []
      for await (const brand of clientFor({ fetch: recorder.fetch }).brands({ pageSize: 1 })) ids.push(brand.brand_id)
      assert.deepEqual(ids, [1, 2])
      assert.deepEqual(recorder.calls, ['POST /auth/login', 'GET /me', 'GET /me'])
    })

    it('walks every daily page: each (date, brand) group exactly once, latest first', async () => {
      const client = clientFor()
      const pages: number[] = []
      const groups: string[] = []
      for await (const page of client.dailyPages({ since: SINCE, until: UNTIL })) {
        pages.push(page.total)
        for (const entry of page.data) groups.push(`${String(entry.date)}|${String(entry.brand_id)}`)
      }
      const expected = expectedDailyGroups(server.dataset, [1, 2], SINCE, UNTIL)
      assert.ok(expected.length > 40, `dataset too small: ${expected.length}`)
      assert.deepEqual([...groups].sort(), expected)
      assert.equal(pages.length, Math.ceil(expected.length / 20))
      assert.ok(pages.slice(0, -1).every((total) => total === 20))
      const dates = groups.map((group) => group.split('|')[0] ?? '')
      assert.deepEqual(dates, [...dates].sort().reverse())
    })

    it('iterates every post across /posts pages', async () => {
      const ids: string[] = []
      for await (const post of clientFor().allPosts({ since: SINCE, until: UNTIL, limit: 7 })) ids.push(String(post.id))
      assert.equal(ids.length, POST_COUNT)
      assert.equal(new Set(ids).size, POST_COUNT)
    })

    it('throws InvalidCredentialsError with the request id on a wrong key pair, without retrying', async () => {
      const recorder = recordingFetch()
      const client = clientFor({ secretKey: 'pas_' + 'B'.repeat(43), fetch: recorder.fetch })
      const error = await client.me().catch((caught: unknown) => caught)
      assert.ok(error instanceof InvalidCredentialsError)
      assert.equal(error.status, 401)
      assert.equal(error.errorCode, 'INVALID_CREDENTIALS')
      assert.equal(error.message, 'Invalid API client key or secret')
      assert.match(error.requestId ?? '', /.+/)
      assert.deepEqual(recorder.calls, ['POST /auth/login'])
    })

    it('throws UserDisabledError (403) for a disabled user', async () => {
      const disabled = await createPartner(server.testStore.store, { brandIds: [1] })
      await setUserDisabled(server.testStore.store.db, disabled.userId, true)
      const client = clientFor({ clientKey: disabled.clientKey, secretKey: disabled.secretKey })
      const error = await client.login().catch((caught: unknown) => caught)
      assert.ok(error instanceof UserDisabledError)
      assert.equal(error.status, 403)
      assert.equal(error.errorCode, 'USER_DISABLED')
    })

    it('does not retry or re-login on TOKEN_INVALID', async () => {
      const recorder = recordingFetch()
      const client = clientFor({ accessToken: 'not.a.token', fetch: recorder.fetch })
      const error = await client.me().catch((caught: unknown) => caught)
      assert.ok(error instanceof TokenInvalidError)
      assert.equal(error.errorCode, 'TOKEN_INVALID')
      assert.deepEqual(recorder.calls, ['GET /me'])
    })

    it('lets concurrent callers share one login', async () => {
      const recorder = recordingFetch()
      const client = clientFor({ fetch: recorder.fetch })
      const [me, posts, agg, again] = await Promise.all([
        client.me(),
        client.posts({ since: SINCE, until: UNTIL, limit: 1 }),
        client.analytics({ type: 'agg', since: SINCE, until: UNTIL }),
        client.me(),
      ])
      assert.deepEqual([me.brands.length, posts.data.length, agg.data.length, again.brands.length], [2, 1, 2, 2])
      assert.deepEqual(recorder.calls.filter((call) => call === 'POST /auth/login'), ['POST /auth/login'])
      assert.equal(recorder.calls.length, 5)
      assert.equal(recorder.calls[0], 'POST /auth/login')
    })

    it('throws NotFoundError (404) for an account not found, with the API\'s detail and request id', async () => {
      const error = await clientFor().analytics({ type: 'agg', account_id: [999], platform: ['fb'] }).catch((caught: unknown) => caught)
      assert.ok(error instanceof NotFoundError, String(error))
      assert.deepEqual([error.status, error.errorCode, error.message], [404, 'NOT_FOUND', 'account_id 999 not found on platform fb in an accessible brand'])
      assert.match(error.requestId ?? '', /^[0-9a-f-]{36}$/)
      assert.deepEqual((error.body as { error_code: string }).error_code, 'NOT_FOUND')
    })

    it('maps 400, 403 and 422 to typed errors carrying the details', async () => {
      const client = clientFor()
      const bad = await client.analytics({ account_id: [100] }).catch((caught: unknown) => caught)
      assert.ok(bad instanceof BadRequestError)
      assert.equal(bad.message, 'account_id requires exactly one platform to be specified')
      const forbidden = await client.analytics({ brand_id: [1, 4] }).catch((caught: unknown) => caught)
      assert.ok(forbidden instanceof ForbiddenError)
      assert.equal(forbidden.status, 403)
      const invalid = await client.analytics({ since: '2026-02-30' }).catch((caught: unknown) => caught)
      assert.ok(invalid instanceof ValidationError)
      assert.deepEqual(invalid.issues.map((item) => item.loc), [['query', 'since']])
    })
  })
}

describe('client without an answering server', () => {
  const keys = { clientKey: 'pak_000000000000000000000000', secretKey: 'pas_0000000000000000000000000000000000000000000' }

  it('refuses a base URL that is not an absolute http(s) URL, naming it', () => {
    assert.throws(() => new PartnerAnalyticsClient({ baseUrl: 'localhost:8000', ...keys }),
      { name: 'TypeError', message: 'baseUrl must be an absolute http:// or https:// URL, e.g. https://api.example.com (got "localhost:8000")' })
  })

  it('throws a NetworkError naming the request and the cause when nothing answers', async () => {
    const port = await closedPort()
    const error = await new PartnerAnalyticsClient({ baseUrl: `http://127.0.0.1:${port}`, ...keys }).me().catch((caught: unknown) => caught)
    assert.ok(error instanceof NetworkError)
    assert.equal(error.message, `POST http://127.0.0.1:${port}/auth/login failed: connection refused (ECONNREFUSED 127.0.0.1:${port})`)
    assert.equal(error.url, `http://127.0.0.1:${port}/auth/login`)
    assert.equal((error.cause as TypeError).message, 'fetch failed')
  })

  it('lets the caller cancel a request in flight: the abort, not a NetworkError', async () => {
    const silent = await silentServer()
    try {
      const controller = new AbortController()
      const pending = new PartnerAnalyticsClient({ baseUrl: silent.baseUrl, ...keys, signal: controller.signal }).me()
      setTimeout(() => { controller.abort() }, 100)
      await assert.rejects(pending, { name: 'AbortError' })
    } finally {
      await silent.close()
    }
  })
})

describe('client against server failures', () => {
  const keysOf = (server: RunningServer) => ({ clientKey: server.partner.clientKey, secretKey: server.partner.secretKey })

  it('throws ServerError for the API\'s own 500, with its detail and request id', async () => {
    // The production app on a store that has lost a table: every report is our failure.
    const server = await startServer('sqlite')
    try {
      await sql`drop table brand_daily`.execute(server.testStore.store.db)
      const error = await new PartnerAnalyticsClient({ baseUrl: server.baseUrl, ...keysOf(server) }).analytics({ type: 'daily', since: SINCE, until: UNTIL }).catch((caught: unknown) => caught)
      assert.ok(error instanceof ServerError, String(error))
      assert.deepEqual([error.status, error.errorCode, error.message], [500, 'INTERNAL_SERVER_ERROR', 'Error fetching analytics'])
      assert.match(error.requestId ?? '', /^[0-9a-f-]{36}$/)
    } finally {
      await server.close()
    }
  })

  /** An HTTP server that answers every request with this status, type and body (a gateway, a portal). */
  async function answering (status: number, type: string, body: string, headers: Record<string, string> = {}) {
    const server = createHttpServer((_request, response) => {
      response.writeHead(status, { 'content-type': type, ...headers })
      response.end(body)
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as AddressInfo
    return { baseUrl: `http://127.0.0.1:${port}`, close: async () => { await new Promise((resolve) => server.close(resolve)) } }
  }
  const keys = { clientKey: 'pak_000000000000000000000000', secretKey: 'pas_0000000000000000000000000000000000000000000' }

  it('throws ServerError for a 5xx that is not the API\'s JSON (a gateway\'s HTML page), without retrying', async () => {
    const gateway = await answering(502, 'text/html', '<html><body><h1>502 Bad Gateway</h1></body></html>', { 'x-request-id': 'gw-1' })
    try {
      const recorder = recordingFetch()
      const error = await new PartnerAnalyticsClient({ baseUrl: gateway.baseUrl, ...keys, fetch: recorder.fetch }).login().catch((caught: unknown) => caught)
      assert.ok(error instanceof ServerError, String(error))
      assert.deepEqual([error.status, error.errorCode, error.message, error.requestId, error.body], [502, 'HTTP_502', 'HTTP 502', 'gw-1', undefined])
      assert.deepEqual(recorder.calls, ['POST /auth/login'])
    } finally {
      await gateway.close()
    }
  })

  it('throws ServerError for a 200 whose body is not JSON (something else answered)', async () => {
    const portal = await answering(200, 'text/html', '<html>Sign in to the Wi-Fi</html>')
    try {
      const error = await new PartnerAnalyticsClient({ baseUrl: portal.baseUrl, ...keys, accessToken: 'a.b.c' }).me().catch((caught: unknown) => caught)
      assert.ok(error instanceof ServerError, String(error))
      assert.deepEqual([error.status, error.errorCode, error.message, error.requestId], [200, 'HTTP_200', 'GET /me: the answer is not JSON', undefined])
    } finally {
      await portal.close()
    }
  })
})
