import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance } from 'fastify'
import { createStore, type Store } from '../../src/storage/db.js'
import { buildTestApp } from '../helpers/app.js'

/**
 * GET /docs works with no internet access: every asset the page names is served by the app
 * itself (from node_modules), nothing points at another origin, and the CSP forbids it anyway.
 */
describe('GET /docs', () => {
  let store: Store
  let app: FastifyInstance

  before(async () => {
    store = createStore({ kind: 'sqlite', file: ':memory:' })
    // A limit of 1 per minute: the page and its assets must not be counted at all.
    app = await buildTestApp(store, { RATE_LIMIT_PER_MINUTE: '1' })
  })
  after(async () => {
    await app.close()
    await store.destroy()
  })

  it('serves the reference page and every asset it loads from the app itself', async () => {
    const page = await app.inject({ method: 'GET', url: '/docs/' })
    assert.equal(page.statusCode, 200)
    assert.match(String(page.headers['content-type']), /^text\/html/)
    assert.match(page.body, /<title>Partner Analytics API reference<\/title>/)
    const assets = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1] ?? '')
    assert.ok(assets.some((asset) => asset.endsWith('swagger-ui-bundle.js')), assets.join(', '))
    for (const asset of assets) {
      assert.doesNotMatch(asset, /^(https?:)?\/\//, `${asset} would need the network`)
      const response = await app.inject({ method: 'GET', url: new URL(asset, 'http://localhost/docs/').pathname })
      assert.equal(response.statusCode, 200, asset)
      assert.ok(response.rawPayload.length > 0, asset)
      assert.equal(response.headers['x-ratelimit-limit-minutely'], undefined, asset)
    }
  })

  it('loads the same document as /openapi.json and switches off the third-party validator badge', async () => {
    const initializer = await app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' })
    assert.equal(initializer.statusCode, 200)
    // The page reads ./json next to itself, which @fastify/swagger-ui serves from the same document.
    assert.match(initializer.body, /url: resolveUrl\('\.\/json'\)/)
    assert.match(initializer.body, /"validatorUrl":null/)
    const pageDocument = await app.inject({ method: 'GET', url: '/docs/json' })
    const document = await app.inject({ method: 'GET', url: '/openapi.json' })
    assert.equal(pageDocument.statusCode, 200)
    assert.deepEqual(pageDocument.json(), document.json())
  })

  it('sends a content security policy that allows only its own origin', async () => {
    const page = await app.inject({ method: 'GET', url: '/docs/' })
    const csp = String(page.headers['content-security-policy'])
    assert.match(csp, /default-src 'self'/)
    assert.match(csp, /script-src 'self';/)
    assert.match(csp, /connect-src 'self'/)
    assert.doesNotMatch(csp, /https?:|\*/)
  })

  it('answers /docs without the trailing slash too, unauthenticated and unlimited', async () => {
    for (let i = 0; i < 3; i++) {
      const response = await app.inject({ method: 'GET', url: '/docs' })
      assert.equal(response.statusCode, 200)
      assert.equal(response.headers['x-ratelimit-limit-minutely'], undefined)
    }
  })
})
