import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance } from 'fastify'
import { createSigner } from 'fast-jwt'
import { buildTestApp, testClock, TEST_JWT_SECRET, wallClock } from '../helpers/app.js'
import { ACCESS_CACHE_TTL_MS } from '../../src/services/access-cache.js'
import { brandRange, insertBrandsWithAccounts } from '../helpers/fixtures.js'
import { bearer, createPartner, loginToken, type TestPartner } from '../helpers/partners.js'
import { createTestStore, DIALECTS, type TestStore } from '../helpers/stores.js'
import { rotateCredentials, setUserDisabled } from '../../src/services/users/users.service.js'

/** The authentication hook on protected routes (docs/authentication.md), exercised through GET /me. */

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/
const INVALID_TOKEN_CHALLENGE = 'Bearer error="invalid_token"'

function b64 (value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url')
}

for (const dialect of DIALECTS) {
  describe(`authentication hook (${dialect})`, () => {
    let test: TestStore
    const clock = testClock()
    let app: FastifyInstance
    let partner: TestPartner
    let token: string

    before(async () => {
      test = await createTestStore(dialect)
      await insertBrandsWithAccounts(test.store.db, brandRange(1, 2))
      app = await buildTestApp(test.store, {}, { clock })
      partner = await createPartner(test.store, { brandIds: [1], name: 'Acme Partner' })
      token = await loginToken(app, partner)
    })
    after(async () => {
      await app.close()
      await test.cleanup()
    })

    async function me (headers: Record<string, string>, url = '/me') {
      return await app.inject({ method: 'GET', url, headers })
    }

    function assertRefused (response: Awaited<ReturnType<typeof me>>, status: number, code: string, detail: string, challenge?: string) {
      assert.equal(response.statusCode, status, response.body)
      const body = response.json()
      assert.deepEqual(body, {
        detail,
        error_code: code,
        status_code: status,
        status: 'error',
        timestamp: body.timestamp,
        request_id: response.headers['x-request-id'],
      })
      assert.match(body.timestamp, TIMESTAMP)
      assert.equal(response.headers['www-authenticate'], challenge)
      // Refused before the rate limit: nothing was counted for anyone.
      assert.equal(response.headers['x-ratelimit-limit-minutely'], undefined)
    }

    const sign = (options: Record<string, unknown>, payload: Record<string, unknown>) =>
      createSigner({ key: TEST_JWT_SECRET, algorithm: 'HS256', ...options })(payload)

    it('accepts a valid token, with the scheme in any case and extra spaces', async () => {
      for (const header of [`Bearer ${token}`, `bearer ${token}`, `BEARER   ${token}  `]) {
        const response = await me({ authorization: header })
        assert.equal(response.statusCode, 200, header)
        assert.equal(response.json().name, 'Acme Partner')
      }
    })

    it('answers INVALID_CREDENTIALS "Not authenticated" without a usable Bearer header', async () => {
      const unusable: Array<Record<string, string>> = [{}, { authorization: `Basic ${token}` }, { authorization: 'Bearer' }, { authorization: 'Bearer    ' }, { authorization: token }]
      for (const headers of unusable) {
        assertRefused(await me(headers), 401, 'INVALID_CREDENTIALS', 'Not authenticated', 'Bearer')
      }
    })

    it('never takes a token from the URL', async () => {
      assertRefused(await me({}, `/me?access_token=${token}`), 401, 'INVALID_CREDENTIALS', 'Not authenticated', 'Bearer')
      assertRefused(await me({}, `/me?token=${token}`), 401, 'INVALID_CREDENTIALS', 'Not authenticated', 'Bearer')
    })

    it('answers TOKEN_INVALID for malformed, wrongly signed, alg none, other-algorithm and unknown-user tokens', async () => {
      const [header, payload] = token.split('.') as [string, string, string]
      const claims = { sub: partner.userId, cid: partner.clientKey }
      const tokens = {
        garbage: 'not-a-jwt',
        twoParts: `${header}.${payload}`,
        badSignature: `${header}.${payload}.${'A'.repeat(43)}`,
        otherSecret: createSigner({ key: 'another-secret-another-secret-0123456789', algorithm: 'HS256', expiresIn: 60_000 })(claims),
        algNone: `${b64({ alg: 'none', typ: 'JWT' })}.${payload}.`,
        hs512: createSigner({ key: TEST_JWT_SECRET, algorithm: 'HS512', expiresIn: 60_000 })(claims),
        unknownUser: sign({ expiresIn: 60_000 }, { sub: 'usr_000000000000000000000000', cid: partner.clientKey }),
        otherUsersKey: sign({ expiresIn: 60_000 }, { sub: partner.userId, cid: 'pak_' + 'Z'.repeat(24) }),
        noExp: sign({}, claims),
        noSub: sign({ expiresIn: 60_000 }, { cid: partner.clientKey }),
        numericSub: sign({ expiresIn: 60_000 }, { sub: 42, cid: partner.clientKey }),
      }
      for (const [name, bad] of Object.entries(tokens)) {
        const response = await me(bearer(bad))
        assert.equal(response.statusCode, 401, name)
        assertRefused(response, 401, 'TOKEN_INVALID', 'Could not validate credentials', INVALID_TOKEN_CHALLENGE)
      }
    })

    it('answers TOKEN_EXPIRED only for a good signature past exp', async () => {
      const past = Math.floor(Date.now() / 1000) - 10
      const claims = { sub: partner.userId, cid: partner.clientKey, iat: past - 3600, exp: past }
      assertRefused(await me(bearer(sign({}, claims))), 401, 'TOKEN_EXPIRED', 'Token has expired', INVALID_TOKEN_CHALLENGE)
      const forged = createSigner({ key: 'another-secret-another-secret-0123456789', algorithm: 'HS256' })(claims)
      assertRefused(await me(bearer(forged)), 401, 'TOKEN_INVALID', 'Could not validate credentials', INVALID_TOKEN_CHALLENGE)
    })

    it('expires a real token after TOKEN_TTL_SECONDS', async () => {
      // The service's wall clock stands still unless moved: no sleeping, no race with a busy machine.
      const time = wallClock(new Date().toISOString())
      const shortLived = await buildTestApp(test.store, { TOKEN_TTL_SECONDS: '60' }, { now: time.now })
      try {
        const login = await shortLived.inject({ method: 'POST', url: '/auth/login', payload: { api_client_key: partner.clientKey, api_secret_key: partner.secretKey } })
        assert.equal(login.json().expires_in, 60)
        const short = bearer(login.json().access_token)
        assert.equal((await shortLived.inject({ url: '/me', headers: short })).statusCode, 200)
        // exp is in whole seconds: the token is good to the end of the second 60 s after login.
        time.advance(59_000)
        assert.equal((await shortLived.inject({ url: '/me', headers: short })).statusCode, 200)
        time.advance(2_000)
        assertRefused(await shortLived.inject({ url: '/me', headers: short }), 401, 'TOKEN_EXPIRED', 'Token has expired', INVALID_TOKEN_CHALLENGE)
        // A new login gets a token good for the next 60 s.
        const again = bearer(await loginToken(shortLived, partner))
        assert.equal((await shortLived.inject({ url: '/me', headers: again })).statusCode, 200)
      } finally {
        await shortLived.close()
      }
    })

    it('stops an issued token within the access cache bound (2 s) when its user is disabled, and lets it work again when enabled', async () => {
      const other = await createPartner(test.store, { brandIds: [2] })
      const otherToken = await loginToken(app, other)
      assert.equal((await me(bearer(otherToken))).statusCode, 200)
      await setUserDisabled(test.store.db, other.userId, true)
      clock.advance(ACCESS_CACHE_TTL_MS + 1)
      assertRefused(await me(bearer(otherToken)), 403, 'USER_DISABLED', 'User account is disabled')
      await setUserDisabled(test.store.db, other.userId, false)
      clock.advance(ACCESS_CACHE_TTL_MS + 1)
      assert.equal((await me(bearer(otherToken))).statusCode, 200)
    })

    it('serves what it read for at most the bound: a token used just before its user is disabled still works until then', async () => {
      const other = await createPartner(test.store, { brandIds: [2] })
      const otherToken = await loginToken(app, other)
      assert.equal((await me(bearer(otherToken))).statusCode, 200)
      await setUserDisabled(test.store.db, other.userId, true)
      clock.advance(ACCESS_CACHE_TTL_MS - 1)
      assert.equal((await me(bearer(otherToken))).statusCode, 200)
      clock.advance(2)
      assertRefused(await me(bearer(otherToken)), 403, 'USER_DISABLED', 'User account is disabled')
    })

    it('stops tokens issued before a credential rotation within the bound; tokens of the new pair work', async () => {
      const other = await createPartner(test.store, { brandIds: [2] })
      const before = await loginToken(app, other)
      assert.equal((await me(bearer(before))).statusCode, 200)
      const rotated = await rotateCredentials(test.store.db, other.userId)
      clock.advance(ACCESS_CACHE_TTL_MS + 1)
      assertRefused(await me(bearer(before)), 401, 'TOKEN_INVALID', 'Could not validate credentials', INVALID_TOKEN_CHALLENGE)
      const after = await loginToken(app, { clientKey: rotated.api_client_key, secretKey: rotated.api_secret_key })
      assert.equal((await me(bearer(after))).statusCode, 200)
    })

    it('signs with JWT_ALGORITHM and then refuses HS256 tokens', async () => {
      const hs512App = await buildTestApp(test.store, { JWT_ALGORITHM: 'HS512' })
      try {
        const hs512Token = await loginToken(hs512App, partner)
        assert.equal(JSON.parse(Buffer.from(hs512Token.split('.')[0] ?? '', 'base64url').toString()).alg, 'HS512')
        assert.equal((await hs512App.inject({ url: '/me', headers: bearer(hs512Token) })).statusCode, 200)
        const refused = await hs512App.inject({ url: '/me', headers: bearer(token) })
        assert.equal(refused.statusCode, 401)
        assert.equal(refused.json().error_code, 'TOKEN_INVALID')
      } finally {
        await hs512App.close()
      }
    })

    it('checks 401 before 422: a bad query without a token is a 401', async () => {
      assertRefused(await me({}, '/me?limit=0'), 401, 'INVALID_CREDENTIALS', 'Not authenticated', 'Bearer')
      assert.equal((await me(bearer(token), '/me?limit=0')).statusCode, 422)
    })

    it('leaves public routes and unknown routes alone', async () => {
      assert.equal((await me({}, '/health')).statusCode, 200)
      for (const headers of [{}, bearer(token), bearer('garbage')]) {
        const response = await me(headers, '/no-such-route')
        assert.equal(response.statusCode, 404)
        assert.equal(response.json().error_code, 'NOT_FOUND')
      }
    })
  })
}
