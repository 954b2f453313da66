import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance, InjectOptions } from 'fastify'
import { redactUrl } from '../../src/http/logging.js'
import { buildLoggedTestApp, captureLogs, type CapturedLogs } from '../helpers/app.js'
import { insertBrandsWithAccounts } from '../helpers/fixtures.js'
import { createPartner, type TestPartner } from '../helpers/partners.js'
import { createTestStore, DIALECTS, type TestStore } from '../helpers/stores.js'

/**
 * No secret or token a test used appears in the logs (issue 11.5), wherever the client put it:
 * the login body, the Authorization header (Bearer and Basic), the query string under any name
 * (`access_token`, `token`, `api_secret_key`, an innocent-looking one), the path, percent-encoded,
 * a malformed JSON body, X-Request-Id — and the 500s' error lines. The production logger writes
 * into a captured stream at level info (every request logs its URL twice).
 */

for (const dialect of DIALECTS) {
  describe(`credentials never reach the logs (${dialect})`, () => {
    let test: TestStore
    let app: FastifyInstance
    let logs: CapturedLogs
    let partner: TestPartner

    before(async () => {
      test = await createTestStore(dialect)
      await insertBrandsWithAccounts(test.store.db, [{ brand_id: 1 }])
      logs = captureLogs()
      app = await buildLoggedTestApp(test.store, {}, logs)
      partner = await createPartner(test.store, { brandIds: [1] })
    })
    after(async () => {
      await app.close()
      await test.cleanup()
    })

    it('redacts the secret, the token and their parts from every line of a scenario that uses them everywhere', async () => {
      const { clientKey, secretKey } = partner
      const login = await app.inject({ method: 'POST', url: '/auth/login', payload: { api_client_key: clientKey, api_secret_key: secretKey } })
      assert.equal(login.statusCode, 200)
      const token = login.json().access_token as string
      const [, payloadPart = '', signaturePart = ''] = token.split('.')
      const basic = Buffer.from(`${clientKey}:${secretKey}`).toString('base64')
      const encodedToken = [...token].map((character) => `%${character.charCodeAt(0).toString(16).padStart(2, '0')}`).join('')

      const requests: InjectOptions[] = [
        { url: '/me', headers: { authorization: `Bearer ${token}` } },
        { url: '/me', headers: { authorization: `Basic ${basic}` } },
        { url: `/me?access_token=${token}` },
        { url: `/me?token=${token}&api_secret_key=${secretKey}&limit=5` },
        { url: `/me?ACCESS_TOKEN=${token}`, headers: { authorization: `bearer ${token}` } },
        { url: `/analytics/?type=agg&note=${token}` },
        { url: `/posts?q=${secretKey}` },
        { url: `/nope/${token}` },
        { url: `/me/${secretKey}?x=1` },
        { url: `/me?x=${encodedToken}` },
        { url: `/me?a%63cess_token=${token}` },
        { url: '/me', headers: { 'x-request-id': secretKey, authorization: `Bearer ${token}` } },
        { method: 'POST', url: '/auth/login', headers: { 'content-type': 'application/json' }, payload: `{"api_client_key":"${clientKey}","api_secret_key":"${secretKey}"` },
        { method: 'POST', url: '/auth/login', headers: { 'content-type': 'text/plain' }, payload: secretKey },
        { method: 'POST', url: `/auth/login?api_secret_key=${secretKey}`, payload: { api_client_key: clientKey, api_secret_key: 'pas_' + 'x'.repeat(43) } },
        { method: 'POST', url: '/auth/login', headers: { cookie: `session=${token}` }, payload: { api_client_key: clientKey, api_secret_key: secretKey } },
      ]
      for (const request of requests) await app.inject(request)
      const echoed = await app.inject({ url: '/health', headers: { 'x-request-id': secretKey } })
      assert.notEqual(echoed.headers['x-request-id'], secretKey, 'a secret-shaped request id is not reused')

      // 500s log their error: still nothing of the credentials.
      await test.store.destroy()
      assert.equal((await app.inject({ url: `/me?access_token=${token}`, headers: { authorization: `Bearer ${token}` } })).statusCode, 500)

      const text = logs.lines.join('')
      assert.ok(logs.lines.length > 2 * requests.length, `only ${logs.lines.length} log lines`)
      assert.match(text, /"url":"\/me\?access_token=\[REDACTED\]"/)
      assert.match(text, /"msg":"request failed"/)
      for (const [name, secret] of [['secret', secretKey], ['token', token], ['token payload', payloadPart], ['token signature', signaturePart], ['basic credentials', basic], ['encoded token', encodedToken.slice(0, 60)]] as const) {
        const line = logs.lines.find((candidate) => candidate.includes(secret))
        assert.equal(line, undefined, `the ${name} appears in a log line: ${line ?? ''}`)
      }
      // The client key is an identifier, not a secret: the logs may name it (they do not, here).
    })
  })
}

describe('redactUrl', () => {
  it('keeps the path and harmless parameters, redacts credentials by name and by shape', () => {
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1In0.c2lnbmF0dXJl'
    const cases: Array<[string, string]> = [
      ['/me?limit=5&cursor=abc', '/me?limit=5&cursor=abc'],
      [`/me?access_token=${jwt}&limit=5`, '/me?access_token=[REDACTED]&limit=5'],
      ['/me?api_secret_key=hunter2&Token=x&password=p&api-key=k', '/me?api_secret_key=[REDACTED]&Token=[REDACTED]&password=[REDACTED]&api-key=[REDACTED]'],
      [`/posts?q=${jwt}`, '/posts?q=[REDACTED]'],
      [`/x/${jwt}/y`, '/x/[REDACTED]/y'],
      [`/me?s=pas_${'a'.repeat(43)}`, '/me?s=[REDACTED]'],
      ['/me?x=%65yJhbGciOiJIUzI1NiJ9%2EeyJzdWIiOiJ1In0%2Ec2ln', '[REDACTED]'],
      ['/me?%zz=1&limit', '/me?%zz=1&limit'],
    ]
    for (const [url, expected] of cases) assert.equal(redactUrl(url), expected, url)
  })
})
