import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance } from 'fastify'
import { createVerifier } from 'fast-jwt'
import { buildTestApp, TEST_JWT_SECRET } from '../helpers/app.js'
import { brandRange, insertBrandsWithAccounts } from '../helpers/fixtures.js'
import { createPartner, type TestPartner } from '../helpers/partners.js'
import { createTestStore, DIALECTS, type TestStore } from '../helpers/stores.js'
import { rotateCredentials, setUserDisabled } from '../../src/services/users/users.service.js'

/** POST /auth/login: every success and failure path of docs/authentication.md except lockout (lockout.test.ts). */

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/
const WELL_FORMED_KEY = 'pak_' + 'A'.repeat(24)
const WELL_FORMED_SECRET = 'pas_' + 'b'.repeat(43)

for (const dialect of DIALECTS) {
  describe(`POST /auth/login (${dialect})`, () => {
    let test: TestStore
    let app: FastifyInstance

    before(async () => {
      test = await createTestStore(dialect)
      await insertBrandsWithAccounts(test.store.db, brandRange(1, 2))
      app = await buildTestApp(test.store, { TOKEN_TTL_SECONDS: '1800' })
    })
    after(async () => {
      await app.close()
      await test.cleanup()
    })

    async function loginWith (payload: unknown, headers: Record<string, string> = {}) {
      return await app.inject({ method: 'POST', url: '/auth/login', payload: payload as string, headers })
    }

    function assertAuthError (response: Awaited<ReturnType<typeof loginWith>>, status: number, code: string, detail: string) {
      assert.equal(response.statusCode, status, response.body)
      const body = response.json()
      assert.deepEqual(Object.keys(body).sort(), ['detail', 'error_code', 'request_id', 'status', 'status_code', 'timestamp'])
      assert.equal(body.detail, detail)
      assert.equal(body.error_code, code)
      assert.equal(body.status_code, status)
      assert.equal(body.status, 'error')
      assert.match(body.timestamp, TIMESTAMP)
      assert.equal(body.request_id, response.headers['x-request-id'])
      if (status === 401) assert.equal(response.headers['www-authenticate'], 'Bearer')
      else assert.equal(response.headers['www-authenticate'], undefined)
    }

    it('trades a valid pair for a bearer token whose lifetime is TOKEN_TTL_SECONDS', async () => {
      const partner = await createPartner(test.store, { brandIds: [1] })
      const response = await loginWith({ api_client_key: partner.clientKey, api_secret_key: partner.secretKey })
      assert.equal(response.statusCode, 200)
      assert.match(String(response.headers['content-type']), /^application\/json; charset=utf-8$/)
      const body = response.json()
      assert.deepEqual(Object.keys(body).sort(), ['access_token', 'expires_in', 'token_type', 'user_id'])
      assert.equal(body.token_type, 'bearer')
      assert.equal(body.expires_in, 1800)
      assert.equal(body.user_id, partner.userId)
      const claims = createVerifier({ key: TEST_JWT_SECRET, algorithms: ['HS256'] })(body.access_token) as Record<string, number | string>
      assert.equal(claims.sub, partner.userId)
      assert.equal(Number(claims.exp) - Number(claims.iat), 1800)
    })

    it('answers 422 with one item per missing field', async () => {
      const response = await loginWith({})
      assert.equal(response.statusCode, 422)
      const body = response.json()
      assert.equal(body.error_code, 'VALIDATION_ERROR')
      assert.equal(body.status_code, 422)
      assert.equal(body.request_id, response.headers['x-request-id'])
      assert.deepEqual(body.detail, [
        { loc: ['body', 'api_client_key'], msg: 'Field required', type: 'missing', ctx: {} },
        { loc: ['body', 'api_secret_key'], msg: 'Field required', type: 'missing', ctx: {} },
      ])
    })

    it('answers 422 for a field that is not a string, numbers included', async () => {
      const response = await loginWith({ api_client_key: 12345, api_secret_key: WELL_FORMED_SECRET })
      assert.equal(response.statusCode, 422)
      assert.deepEqual(response.json().detail, [
        { loc: ['body', 'api_client_key'], msg: 'Input should be a valid string', type: 'string_type', ctx: {} },
      ])
    })

    it('answers 422 loc ["body"] for a non-JSON body, a JSON array, or another content type', async () => {
      for (const [payload, headers] of [
        ['{"api_client_key": ', { 'content-type': 'application/json' }],
        ['[1, 2]', { 'content-type': 'application/json' }],
        ['api_client_key=x&api_secret_key=y', { 'content-type': 'application/x-www-form-urlencoded' }],
        ['', { 'content-type': 'application/json' }],
      ] as const) {
        const response = await loginWith(payload, headers)
        assert.equal(response.statusCode, 422, `${payload}: ${response.body}`)
        const body = response.json()
        assert.equal(body.error_code, 'VALIDATION_ERROR')
        assert.deepEqual(body.detail.map((item: { loc: string[] }) => item.loc), [['body']])
      }
    })

    it('answers 401 "Malformed API client key" / "Malformed API secret key", key first', async () => {
      assertAuthError(await loginWith({ api_client_key: 'pak_short', api_secret_key: WELL_FORMED_SECRET }), 401, 'INVALID_CREDENTIALS', 'Malformed API client key')
      assertAuthError(await loginWith({ api_client_key: WELL_FORMED_KEY, api_secret_key: 'pas_' + 'b'.repeat(42) }), 401, 'INVALID_CREDENTIALS', 'Malformed API secret key')
      assertAuthError(await loginWith({ api_client_key: 'nope', api_secret_key: 'nope' }), 401, 'INVALID_CREDENTIALS', 'Malformed API client key')
      // A secret in the client-key field is malformed too: prefixes are part of the format.
      assertAuthError(await loginWith({ api_client_key: WELL_FORMED_SECRET, api_secret_key: WELL_FORMED_SECRET }), 401, 'INVALID_CREDENTIALS', 'Malformed API client key')
    })

    it('answers 401 "Invalid API client key or secret" for a wrong secret or an unknown key', async () => {
      const partner = await createPartner(test.store, { brandIds: [1] })
      assertAuthError(await loginWith({ api_client_key: partner.clientKey, api_secret_key: WELL_FORMED_SECRET }), 401, 'INVALID_CREDENTIALS', 'Invalid API client key or secret')
      assertAuthError(await loginWith({ api_client_key: WELL_FORMED_KEY, api_secret_key: partner.secretKey }), 401, 'INVALID_CREDENTIALS', 'Invalid API client key or secret')
    })

    it('answers 403 USER_DISABLED for a correct pair of a disabled user, and logs in again once enabled', async () => {
      const partner = await createPartner(test.store, { brandIds: [1] })
      await setUserDisabled(test.store.db, partner.userId, true)
      const pair = { api_client_key: partner.clientKey, api_secret_key: partner.secretKey }
      assertAuthError(await loginWith(pair), 403, 'USER_DISABLED', 'User account is disabled')
      // A wrong pair for a disabled user says nothing about the user.
      assertAuthError(await loginWith({ ...pair, api_secret_key: WELL_FORMED_SECRET }), 401, 'INVALID_CREDENTIALS', 'Invalid API client key or secret')
      await setUserDisabled(test.store.db, partner.userId, false)
      assert.equal((await loginWith(pair)).statusCode, 200)
    })

    it('refuses the old pair after credentials rotate and accepts the new one', async () => {
      const partner: TestPartner = await createPartner(test.store, { brandIds: [2] })
      const rotated = await rotateCredentials(test.store.db, partner.userId)
      assertAuthError(await loginWith({ api_client_key: partner.clientKey, api_secret_key: partner.secretKey }), 401, 'INVALID_CREDENTIALS', 'Invalid API client key or secret')
      const response = await loginWith({ api_client_key: rotated.api_client_key, api_secret_key: rotated.api_secret_key })
      assert.equal(response.statusCode, 200)
      assert.equal(response.json().user_id, partner.userId)
    })

    it('is not behind the authentication hook: a bogus Authorization header changes nothing', async () => {
      const partner = await createPartner(test.store, { brandIds: [1] })
      const response = await loginWith({ api_client_key: partner.clientKey, api_secret_key: partner.secretKey }, { authorization: 'Bearer garbage' })
      assert.equal(response.statusCode, 200)
    })
  })
}
