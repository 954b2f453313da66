import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { Type } from '@sinclair/typebox'
import type { FastifyInstance } from 'fastify'
import { AppError, ERROR_CODES, issue, validationError, type ErrorCode } from '../../src/domain/errors.js'
import { buildUnreadyTestApp } from '../helpers/app.js'
import { createTestStore, type TestStore } from '../helpers/stores.js'

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/

/**
 * The status of each error_code as docs/api-reference.md "Errors" documents it, written out here
 * (not read from the handler's own map, which a test would then only compare with itself).
 * VALIDATION_ERROR and ACCOUNT_NEEDS_ONE_PLATFORM have their own bodies and tests below.
 */
const DOCUMENTED_STATUS: Record<Exclude<ErrorCode, 'VALIDATION_ERROR' | 'ACCOUNT_NEEDS_ONE_PLATFORM'>, number> = {
  INVALID_CREDENTIALS: 401,
  TOKEN_INVALID: 401,
  TOKEN_EXPIRED: 401,
  TOO_MANY_ATTEMPTS: 401,
  USER_DISABLED: 403,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  CURSOR_EXPIRED: 410,
  EXPORT_NOT_READY: 409,
  EXPORT_EXPIRED: 410,
  RANGE_NOT_SATISFIABLE: 416,
  RATE_LIMIT_EXCEEDED: 429,
  INTERNAL_SERVER_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
}

/** The error handler is the same on both stores, so one store is enough here. */
describe('error bodies (docs/api-reference.md "Errors")', () => {
  let testStore: TestStore
  let app: FastifyInstance

  before(async () => {
    testStore = await createTestStore('sqlite')
    app = await buildUnreadyTestApp(testStore.store)
    app.get('/test/throw/:code', async (request) => {
      const code = (request.params as { code: ErrorCode }).code
      throw new AppError(code, `message for ${code}`)
    })
    app.get('/test/validation', async () => {
      throw validationError([issue(['query', 'since'], 'bad since', 'value_error'), issue(['query', 'limit'], 'too big', 'less_than_equal', { limit_value: 100 })])
    })
    app.get('/test/crash', { config: { internalErrorDetail: 'Error fetching analytics' } }, async () => {
      throw new Error('SELECT * FROM secret_table at /srv/app.js:12')
    })
    app.get('/test/crash-plain', async () => { throw new Error('boom with password=hunter2') })
    app.post('/test/body', {
      schema: { body: Type.Object({ a: Type.String(), b: Type.Integer({ maximum: 5 }) }) },
    }, async () => ({ ok: true }))
    app.get('/test/query', {
      schema: { querystring: Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })) }) },
    }, async (request) => request.query)
    await app.ready()
  })
  after(async () => {
    await app.close()
    await testStore.cleanup()
  })

  it('maps every error code to its documented status with the standard body', async () => {
    // Every code the service has is in the table (a new code needs its documented status here).
    assert.deepEqual([...ERROR_CODES].filter((code) => code !== 'VALIDATION_ERROR' && code !== 'ACCOUNT_NEEDS_ONE_PLATFORM').sort(), Object.keys(DOCUMENTED_STATUS).sort())
    for (const [code, status] of Object.entries(DOCUMENTED_STATUS)) {
      const response = await app.inject({ method: 'GET', url: `/test/throw/${code}`, headers: { 'x-request-id': 'req-42' } })
      assert.equal(response.statusCode, status, code)
      const body = response.json()
      assert.deepEqual(Object.keys(body).sort(), ['detail', 'error_code', 'request_id', 'status', 'status_code', 'timestamp'], code)
      assert.equal(body.detail, `message for ${code}`)
      assert.equal(body.error_code, code)
      assert.equal(body.status_code, status)
      assert.equal(body.status, 'error')
      assert.equal(body.request_id, 'req-42')
      assert.match(body.timestamp, TIMESTAMP)
    }
  })

  it('gives the account_id-without-one-platform 400 a body with only detail', async () => {
    const response = await app.inject({ method: 'GET', url: '/test/throw/ACCOUNT_NEEDS_ONE_PLATFORM' })
    assert.equal(response.statusCode, 400)
    assert.deepEqual(response.json(), { detail: 'message for ACCOUNT_NEEDS_ONE_PLATFORM' })
  })

  it('gives 422 an array detail with one item per parameter', async () => {
    const response = await app.inject({ method: 'GET', url: '/test/validation' })
    assert.equal(response.statusCode, 422)
    const body = response.json()
    assert.deepEqual(body.detail, [
      { loc: ['query', 'since'], msg: 'bad since', type: 'value_error', ctx: {} },
      { loc: ['query', 'limit'], msg: 'too big', type: 'less_than_equal', ctx: { limit_value: 100 } },
    ])
    assert.equal(body.error_code, 'VALIDATION_ERROR')
    assert.equal(body.status_code, 422)
    assert.equal(body.status, 'error')
    assert.match(body.timestamp, TIMESTAMP)
    assert.equal(body.request_id, response.headers['x-request-id'])
  })

  it('maps schema validation failures to the 422 shape', async () => {
    const response = await app.inject({ method: 'POST', url: '/test/body', payload: { b: 9 } })
    assert.equal(response.statusCode, 422)
    assert.deepEqual(response.json().detail, [
      { loc: ['body', 'a'], msg: 'Field required', type: 'missing', ctx: {} },
      { loc: ['body', 'b'], msg: 'Input should be less than or equal to 5', type: 'less_than_equal', ctx: { limit_value: 5 } },
    ])
    const query = await app.inject({ method: 'GET', url: '/test/query?limit=abc' })
    assert.equal(query.statusCode, 422)
    assert.deepEqual(query.json().detail, [{ loc: ['query', 'limit'], msg: 'Input should be a valid integer', type: 'int_parsing', ctx: {} }])
  })

  it('answers a malformed, empty or non-JSON body with 422 loc ["body"]', async () => {
    const cases = [
      { payload: '{"a": ', headers: { 'content-type': 'application/json' } },
      { payload: '', headers: { 'content-type': 'application/json' } },
      { payload: 'a=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } },
    ]
    for (const { payload, headers } of cases) {
      const response = await app.inject({ method: 'POST', url: '/test/body', payload, headers })
      assert.equal(response.statusCode, 422, payload)
      const body = response.json()
      assert.equal(body.error_code, 'VALIDATION_ERROR')
      assert.equal(body.detail.length, 1)
      assert.deepEqual(body.detail[0].loc, ['body'])
    }
  })

  it('answers a body over 64 KiB with 422 loc ["body"] "Request body is too large", not a 500', async () => {
    const fits = JSON.stringify({ a: 'x'.repeat(64 * 1024 - 20), b: 1 })
    assert.ok(Buffer.byteLength(fits) <= 64 * 1024, 'the first body fits the limit')
    assert.equal((await app.inject({ method: 'POST', url: '/test/body', payload: fits, headers: { 'content-type': 'application/json' } })).statusCode, 200)
    const payload = JSON.stringify({ a: 'x'.repeat(64 * 1024), b: 1 })
    // The test route, and the one route of the service that reads a body.
    for (const url of ['/test/body', '/auth/login']) {
      const response = await app.inject({ method: 'POST', url, payload, headers: { 'content-type': 'application/json' } })
      assert.equal(response.statusCode, 422, url)
      const body = response.json()
      assert.deepEqual(body, {
        detail: [{ loc: ['body'], msg: 'Request body is too large', type: 'json_invalid', ctx: {} }],
        error_code: 'VALIDATION_ERROR',
        status_code: 422,
        status: 'error',
        timestamp: body.timestamp,
        request_id: response.headers['x-request-id'],
      }, url)
      assert.match(body.timestamp, TIMESTAMP)
    }
  })

  it('hides internals in a 500 and uses the route\'s detail', async () => {
    const response = await app.inject({ method: 'GET', url: '/test/crash' })
    assert.equal(response.statusCode, 500)
    const body = response.json()
    assert.equal(body.error_code, 'INTERNAL_SERVER_ERROR')
    assert.equal(body.detail, 'Error fetching analytics')
    assert.doesNotMatch(response.body, /SELECT|secret_table|srv|stack/)
    const plain = await app.inject({ method: 'GET', url: '/test/crash-plain' })
    assert.equal(plain.json().detail, 'Internal server error')
    assert.doesNotMatch(plain.body, /hunter2/)
  })

  it('answers an unknown route with 404 NOT_FOUND, with or without a token', async () => {
    for (const headers of [{}, { authorization: 'Bearer whatever' }]) {
      const response = await app.inject({ method: 'GET', url: '/nope?x=1', headers })
      assert.equal(response.statusCode, 404)
      const body = response.json()
      assert.equal(body.error_code, 'NOT_FOUND')
      assert.equal(body.status_code, 404)
      assert.equal(body.detail, 'Not Found')
    }
  })
})

describe('request ids (docs/api-reference.md)', () => {
  let testStore: TestStore
  let app: FastifyInstance

  before(async () => {
    testStore = await createTestStore('sqlite')
    app = await buildUnreadyTestApp(testStore.store)
    await app.ready()
  })
  after(async () => {
    await app.close()
    await testStore.cleanup()
  })

  it('reuses an acceptable inbound X-Request-Id and echoes it on errors', async () => {
    const id = 'a'.repeat(128)
    const response = await app.inject({ method: 'GET', url: '/missing', headers: { 'x-request-id': id } })
    assert.equal(response.headers['x-request-id'], id)
    assert.equal(response.json().request_id, id)
    const ok = await app.inject({ method: 'GET', url: '/health', headers: { 'x-request-id': 'Abc.1_2-3' } })
    assert.equal(ok.headers['x-request-id'], 'Abc.1_2-3')
  })

  it('generates a new id for a missing, too long or ill-formed one', async () => {
    for (const inbound of [undefined, 'a'.repeat(129), 'has space', 'semi;colon', '']) {
      const headers: Record<string, string> = inbound === undefined ? {} : { 'x-request-id': inbound }
      const response = await app.inject({ method: 'GET', url: '/missing', headers })
      const id = response.headers['x-request-id']
      assert.equal(typeof id, 'string')
      assert.notEqual(id, inbound)
      assert.match(String(id), /^[0-9a-f-]{36}$/)
      assert.equal(response.json().request_id, id)
    }
  })
})
