import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import type { LightMyRequestResponse } from 'fastify'
import { MAX_CLOCK_SKEW_SECONDS, MAX_TOKEN_LENGTH } from '../../src/services/auth/tokens.js'
import { TEST_JWT_SECRET } from '../helpers/app.js'
import { insertBrandsWithAccounts } from '../helpers/fixtures.js'
import { openPartnerApi, type PartnerApi } from '../helpers/partner-api.js'
import { DIALECTS } from '../helpers/stores.js'

/**
 * Correctly signed tokens with claims this service never issues (issue 14.3): each is 401
 * TOKEN_INVALID on every partner route, on both stores — in particular a NUL in `sub`, which
 * reached PostgreSQL and came back as a 500, and `exp: 1e400` (Infinity once parsed), which never
 * expired. Tokens are signed by hand (HMAC over the raw JSON text) so the payload can hold what
 * JSON.stringify cannot write.
 */

const TTL = 3600

const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64url')

/** A JWT signed with the test secret over exactly this payload text. */
function signRaw (payload: string): string {
  const unsigned = `${b64('{"alg":"HS256","typ":"JWT"}')}.${b64(payload)}`
  return `${unsigned}.${createHmac('sha256', TEST_JWT_SECRET).update(unsigned).digest('base64url')}`
}

function assertTokenInvalid (response: LightMyRequestResponse, label: string): void {
  assert.equal(response.statusCode, 401, `${label}: ${response.body}`)
  const body = response.json()
  assert.deepEqual(body, {
    detail: 'Could not validate credentials',
    error_code: 'TOKEN_INVALID',
    status_code: 401,
    status: 'error',
    timestamp: body.timestamp,
    request_id: response.headers['x-request-id'],
  }, label)
  assert.equal(response.headers['www-authenticate'], 'Bearer error="invalid_token"', label)
}

for (const dialect of DIALECTS) {
  describe(`tokens with claims the service never issues (${dialect})`, () => {
    let api: PartnerApi
    let routes: string[]
    let sub: string
    let cid: string

    before(async () => {
      api = await openPartnerApi(dialect, {
        seed: async (test) => { await insertBrandsWithAccounts(test.store.db, [{ brand_id: 1 }]) },
        brandIds: [1],
      })
      routes = api.app.routeTable.filter((route) => route.access?.auth === 'bearer' && route.method === 'GET').map((route) => route.url)
      sub = api.partner.userId
      cid = api.partner.clientKey
    })
    after(async () => { await api.close() })

    const now = (): number => Math.floor(Date.now() / 1000)
    const json = (value: unknown): string => JSON.stringify(value)

    /** [label, payload text] — each correctly signed, each refused. */
    const REFUSED: Array<[string, () => string]> = [
      ['exp 1e400 (Infinity: never expires)', () => `{"sub":${json(sub)},"cid":${json(cid)},"iat":${now()},"exp":1e400}`],
      ['exp far beyond the lifetime', () => json({ sub, cid, iat: now(), exp: now() + 10 * 365 * 86400 })],
      ['exp one second beyond the lifetime', () => json({ sub, cid, iat: now(), exp: now() + TTL + 1 })],
      ['exp not after iat', () => json({ sub, cid, iat: now(), exp: now() })],
      ['exp not a whole number', () => json({ sub, cid, iat: now(), exp: now() + 60.5 })],
      ['exp a string', () => json({ sub, cid, iat: now(), exp: String(now() + 60) })],
      ['exp beyond 2^53', () => `{"sub":${json(sub)},"cid":${json(cid)},"iat":${now()},"exp":9007199254740993}`],
      ['iat missing', () => json({ sub, cid, exp: now() + 60 })],
      ['iat in the future beyond the clock skew', () => json({ sub, cid, iat: now() + MAX_CLOCK_SKEW_SECONDS + 60, exp: now() + MAX_CLOCK_SKEW_SECONDS + 120 })],
      ['iat far in the future (exp - iat within the lifetime)', () => json({ sub, cid, iat: now() + 10 * 365 * 86400, exp: now() + 10 * 365 * 86400 + 60 })],
      ['iat negative', () => json({ sub, cid, iat: -60, exp: now() + 60 })],
      ['iat not a whole number', () => json({ sub, cid, iat: now() + 0.25, exp: now() + 60 })],
      ['iat 1e400', () => `{"sub":${json(sub)},"cid":${json(cid)},"iat":1e400,"exp":${now() + 60}}`],
      ['nbf not a whole number', () => json({ sub, cid, iat: now(), exp: now() + 60, nbf: now() - 0.5 })],
      ['a NUL in sub', () => json({ sub: `${sub}\u0000`, cid, iat: now(), exp: now() + 60 })],
      ['sub only a NUL', () => json({ sub: '\u0000', cid, iat: now(), exp: now() + 60 })],
      ['a NUL in cid', () => json({ sub, cid: `${cid}\u0000x`, iat: now(), exp: now() + 60 })],
      ['a newline in sub', () => json({ sub: `${sub}\n`, cid, iat: now(), exp: now() + 60 })],
      ['DEL in sub', () => json({ sub: `${sub}\u007f`, cid, iat: now(), exp: now() + 60 })],
      ['a C1 control (NEL) in cid', () => json({ sub, cid: `${cid}\u0085`, iat: now(), exp: now() + 60 })],
      ['an empty sub', () => json({ sub: '', cid, iat: now(), exp: now() + 60 })],
      ['a 129-character sub', () => json({ sub: 'u'.repeat(129), cid, iat: now(), exp: now() + 60 })],
      ['a NUL in another string claim', () => json({ sub, cid, iat: now(), exp: now() + 60, jti: 'a\u0000b' })],
      ['sub a number', () => json({ sub: 42, cid, iat: now(), exp: now() + 60 })],
      ['cid missing', () => json({ sub, iat: now(), exp: now() + 60 })],
    ]

    for (const [label, payload] of REFUSED) {
      it(`401 TOKEN_INVALID for ${label}, on every partner route`, async () => {
        const token = signRaw(payload())
        for (const url of routes) assertTokenInvalid(await api.app.inject({ url, headers: { authorization: `Bearer ${token}` } }), `${label} on ${url}`)
      })
    }

    it(`401 TOKEN_INVALID for a token longer than ${MAX_TOKEN_LENGTH} characters`, async () => {
      const token = signRaw(json({ sub, cid, iat: now(), exp: now() + 60, pad: 'p'.repeat(MAX_TOKEN_LENGTH) }))
      assertTokenInvalid(await api.app.inject({ url: '/me', headers: { authorization: `Bearer ${token}` } }), 'long token')
    })

    it('accepts what the service issues: iat a little ahead (clock skew), exp exactly the lifetime after iat, unknown claims', async () => {
      for (const payload of [
        json({ sub, cid, iat: now() + MAX_CLOCK_SKEW_SECONDS - 5, exp: now() + 600 }),
        json({ sub, cid, iat: now(), exp: now() + TTL }),
        json({ sub, cid, iat: now(), exp: now() + 60, jti: 'abc', nbf: now() - 10 }),
      ]) {
        const response = await api.app.inject({ url: '/me', headers: { authorization: `Bearer ${signRaw(payload)}` } })
        assert.equal(response.statusCode, 200, `${payload}: ${response.body}`)
      }
    })

    it('keeps TOKEN_EXPIRED for a sane token of ours whose lifetime is over', async () => {
      const token = signRaw(json({ sub, cid, iat: now() - TTL - 10, exp: now() - 10 }))
      const response = await api.app.inject({ url: '/me', headers: { authorization: `Bearer ${token}` } })
      assert.equal(response.statusCode, 401)
      assert.equal(response.json().error_code, 'TOKEN_EXPIRED')
    })
  })
}
