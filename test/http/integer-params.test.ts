import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { LightMyRequestResponse } from 'fastify'
import { insertBrandsWithAccounts } from '../helpers/fixtures.js'
import { openPartnerApi, type PartnerApi } from '../helpers/partner-api.js'
import { DIALECTS } from '../helpers/stores.js'

/**
 * Every integer parameter over HTTP, on both stores (issue 14.1; docs/api-reference.md "Ruling:
 * what an integer is"): only decimal digits are integers (a leading minus for `limit`, leading
 * zeros allowed). Hex, binary, octal, exponents, decimals, a plus sign, inner spaces, other
 * scripts' digits and NUL are `int_parsing`; digit strings of any length are read exactly and
 * judged by their range. Values are written raw into the URL, as a client would send them, and
 * every 422 body is checked whole.
 */

/** Written raw after `name=`; each is not an integer. */
const NOT_INTEGERS = [
  '0x10', '0X1F', '0b11', '0o17', '1e2', '1E2', '1.0', '1.', '.5', '5.5', '%2B5', '%2B%2B5', '--5', '5-', '5%200', '5%2C0',
  '1_000', '%EF%BC%95', '%D9%A5', '5%00', '%005', 'five', 'Infinity', 'NaN', 'null', 'true', '%5B5%5D', '0x', '-',
]

const INT_PARSING = { msg: 'Input should be a valid integer', type: 'int_parsing', ctx: {} }

function assert422 (response: LightMyRequestResponse, detail: unknown[], label: string): void {
  assert.equal(response.statusCode, 422, `${label}: ${response.body}`)
  const body = response.json()
  assert.deepEqual(body, {
    detail,
    error_code: 'VALIDATION_ERROR',
    status_code: 422,
    status: 'error',
    timestamp: body.timestamp,
    request_id: response.headers['x-request-id'],
  }, label)
}

for (const dialect of DIALECTS) {
  describe(`integer parameters accept decimal digits only (${dialect})`, () => {
    let api: PartnerApi

    before(async () => {
      api = await openPartnerApi(dialect, {
        seed: async (test) => { await insertBrandsWithAccounts(test.store.db, [{ brand_id: 1, accounts: [{ platform: 'fb', account_id: 10 }] }, { brand_id: 2 }]) },
        brandIds: [1, 2],
      })
    })
    after(async () => { await api.close() })

    const get = async (url: string) => await api.app.inject({ url, headers: api.auth })

    const LIMITS = [
      { path: '/me', max: 100 },
      { path: '/posts', max: 50 },
    ]

    for (const { path, max } of LIMITS) {
      it(`${path} limit: every non-decimal form is 422 int_parsing on ["query","limit"]`, async () => {
        for (const raw of NOT_INTEGERS) assert422(await get(`${path}?limit=${raw}`), [{ loc: ['query', 'limit'], ...INT_PARSING }], `${path} limit=${raw}`)
      })

      it(`${path} limit: digits of any length are read exactly and judged by the range 1..${max}`, async () => {
        const below = { loc: ['query', 'limit'], msg: 'Input should be greater than or equal to 1', type: 'greater_than_equal', ctx: { limit_value: 1 } }
        const above = { loc: ['query', 'limit'], msg: `Input should be less than or equal to ${max}`, type: 'less_than_equal', ctx: { limit_value: max } }
        for (const raw of ['0', '-1', '-0', '000', '-' + '9'.repeat(30), '-' + '9'.repeat(400)]) assert422(await get(`${path}?limit=${raw}`), [below], `${path} limit=${raw}`)
        for (const raw of [String(max + 1), '9'.repeat(17), '9'.repeat(30), '9'.repeat(400), '1' + '0'.repeat(309)]) assert422(await get(`${path}?limit=${raw}`), [above], `${path} limit=${raw.slice(0, 20)}…`)
        // Leading zeros, and blanks around the value (trimmed; an unencoded `+` is a blank in a query string).
        for (const raw of ['1', String(max), '007', '0'.repeat(500) + '5', '+5', '%205', '5%09', '%20%205%20']) {
          const response = await get(`${path}?limit=${raw}`)
          assert.equal(response.statusCode, 200, `${path} limit=${raw.slice(0, 20)}: ${response.body}`)
        }
      })
    }

    const ID_ROUTES = ['/analytics/?type=agg&', '/posts?']
    for (const prefix of ID_ROUTES) {
      const route = prefix.split('?')[0] as string
      for (const name of ['brand_id', 'account_id']) {
        const platform = name === 'account_id' ? '&platform=fb' : ''
        it(`${route} ${name}: items that are not plain digits are int_parsing with the item; long digits are int_range with the item`, async () => {
          const itemParsing = (item: string) => ({ loc: ['query', name], msg: `Each item must be a positive integer; got ${JSON.stringify(item)}`, type: 'int_parsing', ctx: { item } })
          const itemRange = (item: string) => ({ loc: ['query', name], msg: `Each item must be an integer between 1 and 9007199254740991; got ${item}`, type: 'int_range', ctx: { item } })
          const cases: Array<[string, unknown]> = [
            ['0x10', itemParsing('0x10')], ['0b11', itemParsing('0b11')], ['1e2', itemParsing('1e2')], ['1.0', itemParsing('1.0')],
            ['%2B2', itemParsing('+2')], ['-2', itemParsing('-2')], ['1,%2B2', itemParsing('+2')], ['2%202', itemParsing('2 2')],
            ['%EF%BC%95', itemParsing('５')], ['5%00', itemParsing('5\u0000')], ['Infinity', itemParsing('Infinity')],
            ['0', itemRange('0')], ['9007199254740992', itemRange('9007199254740992')], ['9007199254740993', itemRange('9007199254740993')],
            ['9'.repeat(400), itemRange('9'.repeat(400))], ['1,' + '0'.repeat(20) + '9'.repeat(20), itemRange('0'.repeat(20) + '9'.repeat(20))],
          ]
          for (const [raw, issue] of cases) assert422(await get(`${prefix}${name}=${raw}${platform}`), [issue], `${route} ${name}=${raw.slice(0, 20)}`)
          // Leading zeros and blanks around items are fine (the id is 1 or 10 either way).
          const id = name === 'account_id' ? '010' : '001'
          for (const raw of [id, `${id},%20${id}`, `%20${id}%20`]) {
            const response = await get(`${prefix}${name}=${raw}${platform}`)
            assert.equal(response.statusCode, 200, `${route} ${name}=${raw}: ${response.body}`)
          }
        })
      }
    }
  })
}
