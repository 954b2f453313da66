import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createSigner } from 'fast-jwt'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { rotateCredentials, setUserDisabled } from '../../src/services/users/users.service.js'
import { TEST_JWT_SECRET, buildTestApp } from '../helpers/app.js'
import { insertBrandsWithAccounts } from '../helpers/fixtures.js'
import { openPartnerApi, type PartnerApi } from '../helpers/partner-api.js'
import { bearer, createPartner, loginToken } from '../helpers/partners.js'
import { inOneClockWindow } from '../helpers/redis.js'
import { DIALECTS } from '../helpers/stores.js'

/**
 * Every route that declares bearer access, whatever its method (read from the app's own route table, so a new partner
 * route is covered the day it is added) answers the authentication cases of the contract alike:
 * missing or malformed credentials, bad tokens, a disabled user, a token in the URL, and the
 * per-user rate limit.
 */

const NOT_AUTHENTICATED = { status: 401, code: 'INVALID_CREDENTIALS', detail: 'Not authenticated', challenge: 'Bearer' }
const TOKEN_INVALID = { status: 401, code: 'TOKEN_INVALID', detail: 'Could not validate credentials', challenge: 'Bearer error="invalid_token"' }
const TOKEN_EXPIRED = { status: 401, code: 'TOKEN_EXPIRED', detail: 'Token has expired', challenge: 'Bearer error="invalid_token"' }
const USER_DISABLED = { status: 403, code: 'USER_DISABLED', detail: 'User account is disabled', challenge: undefined }

type Expected = typeof NOT_AUTHENTICATED | typeof USER_DISABLED

function assertRefused (response: LightMyRequestResponse, expected: Expected, label: string): void {
  assert.equal(response.statusCode, expected.status, `${label}: ${response.body}`)
  const body = response.json()
  assert.deepEqual([body.error_code, body.detail, body.status_code, body.status], [expected.code, expected.detail, expected.status, 'error'], label)
  assert.equal(response.headers['www-authenticate'], expected.challenge, label)
  assert.equal(body.request_id, response.headers['x-request-id'], label)
  // Refused before the limiter: nothing was counted, no rate-limit headers.
  assert.equal(response.headers['x-ratelimit-limit-minutely'], undefined, label)
}

/** A request for a route of the table: its method, its path with nobody's ids, an empty JSON body where it takes one. */
function request (route: string): { method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: Record<string, never> } {
  const [method, pattern] = route.split(' ') as ['GET' | 'POST' | 'PATCH' | 'DELETE', string]
  const url = pattern.replace(':delivery_id', 'dlv_1').replace(':id', 'wh_000000000000000000000000')
  return method === 'POST' || method === 'PATCH' ? { method, url, payload: {} } : { method, url }
}

const b64 = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url')

for (const dialect of DIALECTS) {
  describe(`bearer routes: the authentication matrix (${dialect})`, () => {
    let api: PartnerApi
    let app: FastifyInstance
    let routes: string[]
    const tokens: Record<string, string> = {}

    before(async () => {
      api = await openPartnerApi(dialect, {
        seed: async (test) => { await insertBrandsWithAccounts(test.store.db, [{ brand_id: 1 }, { brand_id: 2 }]) },
        brandIds: [1],
      })
      app = api.app
      routes = app.routeTable.filter((route) => route.access?.auth === 'bearer' && route.method !== 'HEAD').map((route) => `${route.method} ${route.url}`)
      const now = Math.floor(Date.now() / 1000)
      const claims = { sub: api.partner.userId, cid: api.partner.clientKey }
      const sign = (payload: Record<string, unknown>, key = TEST_JWT_SECRET) => createSigner({ key, algorithm: 'HS256' })(payload)
      tokens.garbage = 'not.a.jwt'
      tokens.otherSecret = sign({ ...claims, exp: now + 600 }, 'another-secret-another-secret-0123456789')
      tokens.algNone = `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ ...claims, exp: now + 600 })}.`
      tokens.expired = sign({ ...claims, iat: now - 7200, exp: now - 3600 })
      tokens.unknownUser = sign({ sub: 'usr_000000000000000000000000', cid: api.partner.clientKey, exp: now + 600 })

      const rotated = await createPartner(api.test.store, { brandIds: [1] })
      tokens.rotated = await loginToken(app, rotated)
      await rotateCredentials(api.test.store.db, rotated.userId)
      const disabled = await createPartner(api.test.store, { brandIds: [1] })
      tokens.disabled = await loginToken(app, disabled)
      await setUserDisabled(api.test.store.db, disabled.userId, true)
    })
    after(async () => { await api.close() })

    it('covers every partner route, both paths of the twins included', () => {
      assert.deepEqual([...routes].sort(), [
        'DELETE /exports/:id', 'DELETE /webhooks/:id', 'GET /analytics', 'GET /analytics/', 'GET /changes', 'GET /data-status', 'GET /exports', 'GET /exports/:id',
        'GET /exports/:id/files/:name', 'GET /exports/:id/manifest', 'GET /me', 'GET /posts', 'GET /posts/',
        'GET /reports', 'GET /webhooks', 'GET /webhooks/:id', 'GET /webhooks/:id/deliveries', 'PATCH /webhooks/:id', 'POST /exports', 'POST /reports', 'POST /webhooks',
        'POST /webhooks/:id/deliveries/:delivery_id/redeliver', 'POST /webhooks/:id/rotate-secret', 'POST /webhooks/:id/test',
      ])
    })

    const CASES: Array<[string, (tokens: Record<string, string>) => Record<string, string>, Expected]> = [
      ['no Authorization header', () => ({}), NOT_AUTHENTICATED],
      ['another scheme', () => ({ authorization: 'Basic dXNlcjpwYXNz' }), NOT_AUTHENTICATED],
      ['Bearer without a token', () => ({ authorization: 'Bearer' }), NOT_AUTHENTICATED],
      ['Bearer with blanks only', () => ({ authorization: 'Bearer    ' }), NOT_AUTHENTICATED],
      ['a malformed token', (t) => bearer(t.garbage ?? ''), TOKEN_INVALID],
      ['a token signed with another secret', (t) => bearer(t.otherSecret ?? ''), TOKEN_INVALID],
      ['alg none', (t) => bearer(t.algNone ?? ''), TOKEN_INVALID],
      ['a token of an unknown user', (t) => bearer(t.unknownUser ?? ''), TOKEN_INVALID],
      ['a token of a rotated key pair', (t) => bearer(t.rotated ?? ''), TOKEN_INVALID],
      ['an expired token', (t) => bearer(t.expired ?? ''), TOKEN_EXPIRED],
      ['a token of a disabled user', (t) => bearer(t.disabled ?? ''), USER_DISABLED],
    ]
    for (const [label, headers, expected] of CASES) {
      it(`${expected.status} ${expected.code} for ${label}, on every partner route`, async () => {
        for (const route of routes) assertRefused(await app.inject({ ...request(route), headers: headers(tokens) }), expected, `${label} on ${route}`)
      })
    }

    it('401 for a valid token sent in the URL instead of the header', async () => {
      const token = api.auth.authorization.slice('Bearer '.length)
      for (const route of routes) assertRefused(await app.inject({ ...request(route), query: { access_token: token, token } }), NOT_AUTHENTICATED, `token in the URL of ${route}`)
    })

    it('429 once a partner spends the minute window, on every partner route, with the limit headers', async () => {
      // The same store behind an instance limited to 2 requests a minute; logins go to the unlimited one.
      const limited = await buildTestApp(api.test.store, { RATE_LIMIT_PER_MINUTE: '2', RATE_LIMIT_PER_HOUR: '0' })
      try {
        for (const route of routes) {
          // Three requests in one clock minute: a run the minute turned under (a busy machine)
          // is run again with a partner of its own (test/helpers/redis.ts).
          await inOneClockWindow(60_000, 10_000, async () => {
            const headers = bearer(await loginToken(app, await createPartner(api.test.store, { brandIds: [1] })))
            const first = await limited.inject({ ...request(route), headers })
            const second = await limited.inject({ ...request(route), headers })
            const third = await limited.inject({ ...request(route), headers })
            // Counted whatever the answer: a route with an id of nobody's answers 404, an empty body (or a report without metrics) 422 (then 429 all the same).
            const allowed = route.endsWith(' /reports') || route === 'POST /webhooks' || route === 'POST /exports' ? 422 : route.startsWith('GET') && !route.includes(':') ? 200 : 404
            assert.deepEqual([first.statusCode, second.statusCode, third.statusCode], [allowed, allowed, 429], route)
            assert.deepEqual([first.headers['x-ratelimit-remaining-minutely'], second.headers['x-ratelimit-remaining-minutely'], third.headers['x-ratelimit-remaining-minutely']], ['1', '0', '0'], route)
            const body = third.json()
            assert.equal(body.error_code, 'RATE_LIMIT_EXCEEDED', route)
            assert.equal(String(body.retry_after), third.headers['retry-after'], route)
            assert.ok(body.retry_after >= 1 && body.retry_after <= 60, route)
            assert.equal(body.detail, `Rate limit exceeded. Please wait ${String(body.retry_after)} seconds before making another request.`, route)
          })
        }
      } finally {
        await limited.close()
      }
    })
  })
}
