import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'
import { dailyRow } from '../helpers/analytics-fixtures.js'
import { insertBrandsWithAccounts } from '../helpers/fixtures.js'
import { openPartnerApi, type PartnerApi } from '../helpers/partner-api.js'
import { DIALECTS } from '../helpers/stores.js'
import { insertPosts, postRow } from '../posts/posts-fixtures.js'

/**
 * Property-based probing of every route (issue 11.4), read from the app's route table, on both
 * stores: query strings built from the routes' own parameters and arbitrary names, with repeated
 * keys, unicode (lone surrogates included), NUL and control characters, oversized values,
 * SQL-shaped text, lists, every spelling of numbers, dates over 0001-01-01 … 9999-12-31 and
 * beyond, real cursors edited; junk `Authorization` and `X-Request-Id` headers; login bodies of
 * any JSON shape and type, under any content type. Every answer is a 2xx or one of the contract's
 * 4xx bodies — the standard body, the 422 with its items, or the bare 400 — never a 5xx.
 */

const PARTNER_RUNS = 150
const LOGIN_RUNS = 150
const OTHER_RUNS = 25

const PARAMETERS = ['type', 'since', 'until', 'brand_id', 'account_id', 'platform', 'split_by_platform', 'cursor', 'limit', 'post_type', 'order_by', 'order', 'topics', 'category']
const STANDARD_KEYS = ['detail', 'error_code', 'status_code', 'status', 'timestamp', 'request_id']

/** Percent-encodes the UTF-8 bytes of any string (lone surrogates become U+FFFD, as a client's encoder would). */
function encode (text: string): string {
  return [...Buffer.from(text, 'utf8')].map((byte) => /[A-Za-z0-9\-_.~]/.test(String.fromCharCode(byte)) ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('')
}

const pad = (value: number, width: number): string => String(Math.abs(value)).padStart(width, '0')

const date = fc.date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true }).map((day) => day.toISOString().slice(0, 10))
const dateLike = fc.tuple(fc.integer({ min: -2, max: 10_001 }), fc.integer({ min: -1, max: 14 }), fc.integer({ min: -1, max: 33 })).map(([y, m, d]) => `${y < 0 ? '-' : ''}${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}`)
const numberForms = fc.oneof(
  fc.integer({ min: -5, max: 200 }).map(String),
  fc.constantFrom('0x10', '0b11', '1e2', '1.0', '+5', ' 5', '05', '9007199254740993', '9'.repeat(400), '-0', 'NaN', 'Infinity', '1,', ',1', '1,,2', '١٢'),
  fc.array(fc.integer({ min: -3, max: 2 ** 31 }), { minLength: 1, maxLength: 120 }).map((ids) => ids.join(',')),
)
const sqlShaped = fc.constantFrom("' OR 1=1 --", '1; DROP TABLE brands; --', "1' UNION SELECT api_client_key FROM credentials --", '%', '_', '\\', "fb' --", '"', '`', '$1', '?', 'NULL', '1)--', "'); select pg_sleep(5); --", 'randomblob(1000000000)')
const words = fc.constantFrom('daily', 'monthly', 'agg', 'DAILY', 'fb', 'facebook', 'FB', 'ig,tk', 'pi,pinterest,xx', 'reel', 'reels,video', 'true', 'false', 'yes', 'off', 'maybe', 'created_time', 'interactions', 'revenue', 'engagement_rate', 'asc', 'desc', 'ASC', '', ' ', ',')
const weird = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom('\u0000', 'a\u0000b', '\u0001\u001f\u007f\u0085', '\ud800', '\udfff\ud800', '\u202e', '\ufeff', 'é', '𝟘', '\t5\t', '5\u0000'),
  fc.nat({ max: 20_000 }).map((length) => 'x'.repeat(length)),
)

function valueArbitrary (cursors: string[]): fc.Arbitrary<string> {
  const editedCursor = fc.tuple(fc.constantFrom(...cursors), fc.nat(), fc.string({ minLength: 1, maxLength: 3 })).map(([cursor, at, text]) => {
    const index = at % (cursor.length + 1)
    return cursor.slice(0, index) + text + cursor.slice(index + 1)
  })
  return fc.oneof(date, dateLike, numberForms, sqlShaped, words, weird, fc.constantFrom(...cursors), editedCursor, fc.base64String({ maxLength: 200 }))
}

/** A raw query string: known and unknown names, repeated keys, encoded or raw values. */
function queryArbitrary (cursors: string[]): fc.Arbitrary<string> {
  const name = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...PARAMETERS) }, { weight: 1, arbitrary: fc.string({ maxLength: 12 }) })
  const pair = fc.tuple(name, valueArbitrary(cursors), fc.constantFrom('encoded', 'encoded', 'encoded', 'raw')).map(([key, value, how]) =>
    how === 'raw' ? `${key.replace(/[&#\s]/g, '')}=${value.replace(/[&#\s]/g, '')}` : `${encode(key)}=${encode(value)}`)
  const validBase = fc.constantFrom('', 'type=daily', 'type=agg&brand_id=1', 'type=monthly&platform=fb', 'brand_id=1&account_id=10&platform=fb', 'since=0001-01-01&until=0001-12-31', 'since=9999-01-01&until=9999-12-31')
  return fc.tuple(validBase, fc.array(pair, { maxLength: 8 }), fc.constantFrom('', '&', '&&', '&=', '&%', '&%zz=1', '&a=%FF%FE', '&=&=')).map(([base, pairs, tail]) => [base, ...pairs].filter((part) => part !== '').join('&') + tail)
}

const headerText = fc.string({ unit: 'binary-ascii', maxLength: 300 }).map((text) => text.replace(/[^\t\x20-\x7e]/g, ''))

/** The contract's shapes for an answer that is not a 2xx. */
function assertContractAnswer (response: LightMyRequestResponse, label: string): void {
  assert.ok(response.statusCode < 500, `${label}: ${response.statusCode} ${response.body.slice(0, 300)}`)
  if (response.statusCode < 400) return
  const body = response.json()
  if (response.statusCode === 400) {
    assert.deepEqual(body, { detail: 'account_id requires exactly one platform to be specified' }, label)
    return
  }
  const keys = Object.keys(body)
  assert.deepEqual(keys.slice(0, 6), STANDARD_KEYS, `${label}: ${response.body.slice(0, 300)}`)
  assert.equal(body.status_code, response.statusCode, label)
  assert.equal(body.status, 'error', label)
  assert.equal(body.request_id, response.headers['x-request-id'], label)
  assert.match(body.timestamp, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/, label)
  if (response.statusCode === 429) assert.deepEqual(keys, [...STANDARD_KEYS, 'retry_after'], label)
  else assert.deepEqual(keys, STANDARD_KEYS, label)
  if (response.statusCode === 422) {
    assert.equal(body.error_code, 'VALIDATION_ERROR', label)
    assert.ok(Array.isArray(body.detail) && body.detail.length > 0, label)
    for (const issue of body.detail) {
      assert.deepEqual(Object.keys(issue), ['loc', 'msg', 'type', 'ctx'], label)
      assert.ok(['query', 'body'].includes(issue.loc[0]), `${label}: loc ${JSON.stringify(issue.loc)}`)
      assert.equal(typeof issue.msg, 'string', label)
      assert.equal(typeof issue.type, 'string', label)
      assert.equal(typeof issue.ctx, 'object', label)
    }
  } else {
    assert.equal(typeof body.detail, 'string', label)
  }
}

for (const dialect of DIALECTS) {
  describe(`every route under arbitrary input (${dialect}, property-based)`, () => {
    let api: PartnerApi
    let app: FastifyInstance
    const cursors: string[] = []

    before(async () => {
      api = await openPartnerApi(dialect, {
        seed: async (test) => {
          await insertBrandsWithAccounts(test.store.db, [
            { brand_id: 1, accounts: [{ platform: 'fb', account_id: 10 }, { platform: 'ig', account_id: 10 }] },
            { brand_id: 2, accounts: [{ platform: 'tk', account_id: 20 }] },
            { brand_id: 3 },
          ])
          await test.store.db.insertInto('daily_metrics').values([
            dailyRow('fb', 10, '0001-01-01', { views: 1 }), dailyRow('fb', 10, '2026-01-01', { views: 5, reach: 7 }),
            dailyRow('ig', 10, '2026-01-02', { views: 2 }), dailyRow('tk', 20, '9999-12-31', { views: 9 }),
          ]).execute()
          await insertPosts(test.store.db, Array.from({ length: 12 }, (_, i) => postRow(i % 2 === 0 ? 'fb' : 'ig', `p${i}`, 10, `2026-01-${pad(i + 1, 2)}T10:00:00Z`, { views: i, interactions: i % 3 === 0 ? null : i })))
        },
        brandIds: [1, 2],
      })
      app = api.app
      // Real cursors, to be replayed and edited.
      const daily = await api.analytics({ type: 'daily', since: '2025-01-01', until: '2026-12-31', brand_id: '1,2' })
      const posts = await api.posts({ since: '2026-01-01', until: '2026-01-31', limit: '2' })
      const me = await api.me({ limit: '1' })
      for (const cursor of [daily.body.next_cursor, posts.body.next_cursor, me.body.next_cursor]) if (typeof cursor === 'string') cursors.push(cursor)
      assert.ok(cursors.length >= 2, 'fixtures give cursors to replay')
    })
    after(async () => { await api.close() })

    it(`partner routes: arbitrary query strings never answer 5xx (${PARTNER_RUNS} per route)`, async (t) => {
      const routes = app.routeTable.filter((route) => route.access?.auth === 'bearer' && route.method === 'GET').map((route) => route.url)
      const statuses: Record<string, number> = {}
      for (const url of routes) {
        await fc.assert(fc.asyncProperty(queryArbitrary(cursors), async (query) => {
          const response = await app.inject({ method: 'GET', url: `${url}?${query}`, headers: api.auth })
          statuses[response.statusCode] = (statuses[response.statusCode] ?? 0) + 1
          assertContractAnswer(response, `GET ${url}?${query.slice(0, 300)}`)
        }), { numRuns: PARTNER_RUNS })
      }
      t.diagnostic(`answers by status: ${JSON.stringify(statuses)}`)
    })

    it(`every route: junk Authorization and X-Request-Id headers never answer 5xx (${OTHER_RUNS * 2} per route)`, async () => {
      const token = api.auth.authorization.slice('Bearer '.length)
      const authorization = fc.oneof(
        headerText,
        headerText.map((text) => `Bearer ${text}`),
        fc.constantFrom('Bearer', 'bearer ', 'Basic Zm9vOmJhcg==', `Bearer ${token}x`, `Bearer ${token} ${token}`, `Bearer ${token.split('.').reverse().join('.')}`, `Bearer ${'a'.repeat(8000)}`, `Bearer ${token.slice(0, -4)}`),
        fc.tuple(fc.nat(), headerText).map(([at, text]) => `Bearer ${token.slice(0, at % token.length)}${text}${token.slice(at % token.length)}`),
      )
      for (const route of app.routeTable.filter((candidate) => candidate.method !== 'HEAD')) {
        const url = route.url.replace('*', 'swagger-ui.css')
        await fc.assert(fc.asyncProperty(authorization, headerText, async (auth, requestId) => {
          const options: InjectOptions = { method: route.method as 'GET' | 'POST', url, headers: { authorization: auth, 'x-request-id': requestId } }
          if (route.method === 'POST') options.payload = { api_client_key: api.partner.clientKey, api_secret_key: 'pas_' + 'z'.repeat(43) }
          const response = await app.inject(options)
          if (!url.startsWith('/docs')) assertContractAnswer(response, `${route.method} ${url} authorization=${auth.slice(0, 80)}`)
          else assert.ok(response.statusCode < 500, `${url}: ${response.statusCode}`)
        }), { numRuns: OTHER_RUNS * 2 })
      }
    })

    it(`POST /auth/login: bodies of any shape, type and content type never answer 5xx (${LOGIN_RUNS})`, async () => {
      const key = fc.oneof(fc.constant(api.partner.clientKey), fc.constant('pak_' + 'A'.repeat(24)), fc.string({ unit: 'binary', maxLength: 40 }), fc.jsonValue())
      const secret = fc.oneof(fc.constant(api.partner.secretKey), fc.constant('pas_' + 'b'.repeat(43)), fc.string({ unit: 'binary', maxLength: 60 }), fc.jsonValue(), fc.constant('pas_\u0000' + 'b'.repeat(42)))
      const body = fc.oneof(
        fc.record({ api_client_key: key, api_secret_key: secret }, { requiredKeys: [] }).map((record) => JSON.stringify(record)),
        fc.jsonValue().map((value) => JSON.stringify(value)),
        fc.string({ unit: 'binary', maxLength: 200 }),
        fc.constantFrom('', '{', '{"api_client_key":', 'null', '[]', '{"__proto__":{"api_client_key":"x"}}', '{"api_client_key":"a","api_client_key":"b"}', 'x'.repeat(70_000)),
      )
      const contentType = fc.constantFrom('application/json', 'application/json; charset=utf-8', 'application/JSON', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json; charset=latin1', '', 'application/vnd.api+json')
      let ip = 0
      await fc.assert(fc.asyncProperty(body, contentType, async (payload, type) => {
        ip += 1
        const headers: Record<string, string> = type === '' ? {} : { 'content-type': type }
        const response = await app.inject({ method: 'POST', url: '/auth/login', payload, headers, remoteAddress: `10.9.${Math.floor(ip / 250)}.${ip % 250}` })
        assertContractAnswer(response, `login ${type} ${payload.slice(0, 200)}`)
      }), { numRuns: LOGIN_RUNS })
    })

    it(`public routes: arbitrary query strings never answer 5xx (${OTHER_RUNS} per route)`, async () => {
      const routes = app.routeTable.filter((route) => route.access?.auth === 'none' && route.method === 'GET')
      for (const route of routes) {
        await fc.assert(fc.asyncProperty(queryArbitrary(cursors), async (query) => {
          assertContractAnswer(await app.inject({ method: 'GET', url: `${route.url}?${query}` }), `GET ${route.url}?${query.slice(0, 200)}`)
        }), { numRuns: OTHER_RUNS })
      }
    })
  })
}
