import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import SwaggerParser from '@apidevtools/swagger-parser'
import type { FastifyInstance } from 'fastify'
import { PLATFORM_CODES, PLATFORM_NAMES } from '../../src/domain/platforms.js'
import { completeDocument } from '../../src/http/plugins/openapi-document.js'
import { COMPONENT_MARKER } from '../../src/http/schemas/components.js'
import { createStore, type Store } from '../../src/storage/db.js'
import { buildTestApp } from '../helpers/app.js'
import { fetchDocument, ResponseValidator, type OpenApiDoc } from './document.js'

/**
 * The document itself: valid OpenAPI 3.1, every route of the app in it with the statuses the
 * contract names, the shared parts (security, headers, alias table), and examples that agree with
 * their own schemas. No storage is touched here (responses are validated in responses.test.ts).
 */

/** The contract's statuses per operation (docs/api-reference.md). */
const CONTRACT_STATUSES: Record<string, number[]> = {
  'GET /health': [200, 503],
  'GET /health/live': [200],
  'GET /health/ready': [200, 503],
  'POST /auth/login': [200, 401, 403, 422, 429, 500],
  'GET /me': [200, 401, 403, 422, 429, 500],
  'GET /analytics/': [200, 400, 401, 403, 404, 422, 429, 500],
  'GET /posts': [200, 400, 401, 403, 404, 422, 429, 500],
  'GET /data-status': [200, 400, 401, 403, 404, 422, 429, 500, 503],
  'GET /catalog/metrics': [200],
  'GET /changes': [200, 401, 403, 410, 422, 429, 500],
}

/** Public routes: no token (the /health routes and the catalogue also have no rate limit). */
const UNLIMITED_PATHS = ['/health', '/health/live', '/health/ready', '/catalog/metrics']
const PUBLIC_PATHS = [...UNLIMITED_PATHS, '/auth/login']

/** Routes the document leaves out on purpose: itself, the reference page's assets, and the dashboard page (with / redirecting to it). */
const UNDOCUMENTED = /^\/$|^\/(openapi\.json|docs|dashboard)(\/|\*|$)/

/** Every (method, path) Fastify serves, read from its route tree (HEAD twins left out). */
function routesOf (app: FastifyInstance): string[] {
  const stack: string[] = []
  const routes: string[] = []
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^((?:│ {3}| {4})*)(?:├── |└── )(\S+) \(([^)]+)\)/.exec(line)
    if (match === null) continue
    const depth = (match[1] ?? '').length / 4
    const path = (stack[depth - 1] ?? '') + (match[2] ?? '')
    stack[depth] = path
    stack.length = depth + 1
    for (const method of (match[3] ?? '').split(', ')) {
      // Fastify's `:id` is OpenAPI's `{id}`.
      if (method !== 'HEAD' && method !== '-') routes.push(`${method} ${path.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`)
    }
  }
  return routes
}

describe('GET /openapi.json', () => {
  let store: Store
  let app: FastifyInstance
  let doc: OpenApiDoc

  before(async () => {
    store = createStore({ kind: 'sqlite', file: ':memory:' })
    app = await buildTestApp(store)
    doc = await fetchDocument(app)
  })
  after(async () => {
    await app.close()
    await store.destroy()
  })

  it('is served publicly as JSON, without rate-limit headers', async () => {
    const response = await app.inject({ method: 'GET', url: '/openapi.json' })
    assert.equal(response.statusCode, 200)
    assert.match(String(response.headers['content-type']), /^application\/json/)
    assert.equal(response.headers['x-ratelimit-limit-minutely'], undefined)
    assert.equal(doc.openapi, '3.1.0')
  })

  it('passes the OpenAPI 3.1 validator (swagger-parser)', async () => {
    // validate() dereferences in place: give it a copy.
    await assert.doesNotReject(SwaggerParser.validate(structuredClone(doc) as never))
  })

  it('lists every route the app serves, each once (the trailing-slash twins under their main path), with a unique operationId, tags and a summary', () => {
    const documented = Object.entries(doc.paths).flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`))
    const served = routesOf(app).filter((route) => !UNDOCUMENTED.test(route.split(' ')[1] ?? ''))
    assert.ok(served.length >= Object.keys(CONTRACT_STATUSES).length, `route tree not read: ${served.join(', ')}`)
    // docs/api-reference.md "Basics": /analytics and /analytics/, /posts and /posts/ are one route each.
    const TWINS: Record<string, string> = { 'GET /analytics': 'GET /analytics/', 'GET /posts/': 'GET /posts' }
    assert.ok(served.includes('GET /analytics') && served.includes('GET /posts/'), 'the twins are served')
    assert.deepEqual([...documented].sort(), [...new Set(served.map((route) => TWINS[route] ?? route))].sort())
    const ids = Object.values(doc.paths).flatMap((operations) => Object.values(operations).map((operation) => operation.operationId))
    assert.equal(new Set(ids).size, ids.length, `duplicate operationId in ${ids.join(', ')}`)
    for (const operations of Object.values(doc.paths)) {
      for (const operation of Object.values(operations) as Array<{ tags?: string[], summary?: string }>) {
        assert.ok((operation.tags ?? []).length > 0 && (operation.summary ?? '') !== '')
      }
    }
  })

  it('documents every status the contract names for each operation, each with a body schema', () => {
    const validator = new ResponseValidator(doc)
    for (const [route, statuses] of Object.entries(CONTRACT_STATUSES)) {
      const [method = '', path = ''] = route.split(' ')
      const responses = validator.operation(method, path).responses
      for (const status of statuses) {
        assert.ok(responses[String(status)]?.content?.['application/json']?.schema !== undefined, `${route} lacks ${status}`)
        assert.notEqual(responses[String(status)]?.description, 'Default Response', `${route} ${status} has no description`)
      }
    }
  })

  it('requires the bearer token everywhere except the /health routes, /auth/login and /catalog/metrics', () => {
    assert.deepEqual(doc.components.securitySchemes.bearerAuth, { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'The access_token of POST /auth/login' })
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const operation of Object.values(operations)) {
        const expected = PUBLIC_PATHS.includes(path) ? [] : [{ bearerAuth: [] }]
        assert.deepEqual(operation.security, expected, path)
      }
    }
  })

  it('puts X-Request-Id on every response, rate-limit headers on limited routes, Retry-After on 429 and WWW-Authenticate on 401', () => {
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const operation of Object.values(operations)) {
        for (const [status, response] of Object.entries(operation.responses)) {
          const names = Object.keys(response.headers ?? {})
          assert.ok(names.includes('X-Request-Id'), `${path} ${status}`)
          // Protected 401s come from the auth hook, before the per-user limiter counts anything.
          const limited = !UNLIMITED_PATHS.includes(path) && !(status === '401' && path !== '/auth/login')
          assert.equal(names.includes('x-ratelimit-remaining-minutely'), limited, `${path} ${status}`)
          assert.equal(names.includes('X-Usage-Total'), limited, `${path} ${status}`)
          if (status === '429') assert.ok(names.includes('Retry-After'), `${path} 429`)
          if (status === '401') assert.ok(names.includes('WWW-Authenticate'), `${path} 401`)
        }
      }
    }
    assert.equal(doc.components.headers['X-Request-Id']?.required, true)
  })

  it('names one shape per component: the dates of data status and of the feed are one DateRange, and a name given to two shapes is refused', () => {
    const range = { $ref: '#/components/schemas/DateRange' }
    const schemas = doc.components.schemas as Record<string, { properties: Record<string, { items?: unknown, properties?: Record<string, { items?: unknown }> }> }>
    assert.deepEqual(schemas.AccountStatus?.properties.missing?.items, range)
    const accounts = schemas.AnalyticsUpdatedData?.properties.accounts?.items as { properties: Record<string, { items?: unknown }> }
    assert.deepEqual(accounts.properties.dates?.items, range)
    assert.deepEqual(schemas.DateRange?.properties.since, { format: 'date', description: 'First day of the range, inclusive, YYYY-MM-DD', type: 'string' })
    const shape = (format: string) => ({ type: 'object', properties: { since: { type: 'string', format } }, [COMPONENT_MARKER]: 'Range' })
    const operation = (format: string) => ({ operationId: `get${format}`, responses: { 200: { content: { 'application/json': { schema: shape(format) } } } } })
    const twice = { paths: { '/a': { get: operation('date') }, '/b': { get: operation('date') } } }
    // One Range beside the components every document carries (the webhook payloads).
    assert.deepEqual(Object.keys(completeDocument(twice).components?.schemas ?? {}).filter((name) => name === 'Range'), ['Range'])
    const clash = { paths: { '/a': { get: operation('date') }, '/b': { get: operation('date-time') } } }
    assert.throws(() => completeDocument(clash), /^Error: OpenAPI: two different schemas are named Range; give one another name or share one schema$/)
  })

  it('shares the error bodies as components and references them', () => {
    assert.deepEqual(Object.keys(doc.components.schemas).filter((name) => name.endsWith('Body')).sort().slice(0, 3), ['BareDetailBody', 'ErrorBody', 'ValidationErrorBody'])
    const validator = new ResponseValidator(doc)
    assert.deepEqual(validator.operation('GET', '/me').responses['401']?.content?.['application/json']?.schema, { $ref: '#/components/schemas/ErrorBody' })
    assert.deepEqual(validator.operation('GET', '/analytics/').responses['400']?.content?.['application/json']?.schema, { $ref: '#/components/schemas/BareDetailBody' })
  })

  it('carries the platform alias table in its description', () => {
    for (const code of PLATFORM_CODES) {
      assert.ok(doc.info.description.includes(`| \`${code}\` | \`${PLATFORM_NAMES[code]}\`, \`${code}\` |`), code)
    }
  })

  it('marks query parameters that have a default as optional (GET /me limit)', () => {
    const limit = new ResponseValidator(doc).operation('GET', '/me').parameters?.find((parameter) => parameter.name === 'limit')
    assert.equal(limit?.required, false)
  })

  it('documents the login body, which the route checks itself', () => {
    const login = doc.paths['/auth/login']?.post as unknown as { requestBody: { required: boolean, content: Record<string, { schema: { required: string[] } }> } }
    assert.deepEqual(login.requestBody.content['application/json']?.schema.required, ['api_client_key', 'api_secret_key'])
  })

  it('has examples on every error response and on login, the /health routes and /me, each valid against its own schema', () => {
    const validator = new ResponseValidator(doc)
    let checked = 0
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        for (const [status, response] of Object.entries(operation.responses)) {
          const examples = response.content?.['application/json']?.examples
          if (Number(status) >= 400 && status !== '503') assert.ok(examples !== undefined, `${method} ${path} ${status} has no example`)
          for (const [name, example] of Object.entries(examples ?? {})) {
            assert.deepEqual(validator.bodyErrors(method, path, Number(status), example.value), [], `${method} ${path} ${status} example ${name}`)
            checked++
          }
        }
      }
    }
    for (const id of ['login', 'getHealth', 'getHealthLive', 'getHealthReady', 'getMe']) {
      const operation = Object.values(doc.paths).flatMap((operations) => Object.values(operations)).find((candidate) => candidate.operationId === id)
      assert.ok(operation?.responses['200']?.content?.['application/json']?.examples !== undefined, `${id} 200 has no example`)
    }
    assert.ok(checked > 20, `only ${checked} examples checked`)
  })
})
