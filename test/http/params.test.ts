import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { AppError } from '../../src/errors.js'
import {
  QueryParams, parseBoolean, parseCalendarDate, parseEnum, parseIdList, parsePlatformList,
} from '../../src/http/params.js'

describe('parseIdList', () => {
  it('accepts spaces, leading zeros and duplicates, returning distinct ids ascending', () => {
    assert.deepEqual(parseIdList('brand_id', '5, 005 ,3,3'), { ok: true, value: [3, 5] })
  })
  for (const bad of ['1,,2', '1,', ',1', '-1', '+1', '1.5', 'abc', '0', '1e3', '99999999999999999999']) {
    it(`refuses ${JSON.stringify(bad)} with one issue on the parameter`, () => {
      const parsed = parseIdList('brand_id', bad)
      assert.equal(parsed.ok, false)
      if (!parsed.ok) assert.deepEqual(parsed.issue.loc, ['query', 'brand_id'])
    })
  }
  it('allows 100 distinct ids and refuses 101 (counting distinct ones)', () => {
    const hundred = Array.from({ length: 100 }, (_, i) => i + 1)
    assert.equal(parseIdList('account_id', [...hundred, 1, 2].join(',')).ok, true)
    const parsed = parseIdList('account_id', [...hundred, 101].join(','))
    assert.deepEqual(parsed, { ok: false, issue: { loc: ['query', 'account_id'], msg: 'At most 100 distinct ids are allowed; got 101', type: 'too_long', ctx: { max_length: 100, actual_length: 101 } } })
  })
})

describe('parsePlatformList', () => {
  it('resolves codes and aliases case-insensitively into canonical order without duplicates', () => {
    assert.deepEqual(parsePlatformList('platform', 'Pinterest, FB,facebook,ig'), { ok: true, value: ['fb', 'ig', 'pi'] })
  })
  for (const bad of ['fb,', 'twitter', 'fb,,ig']) {
    it(`refuses ${JSON.stringify(bad)}`, () => { assert.equal(parsePlatformList('platform', bad).ok, false) })
  }
})

describe('parseBoolean', () => {
  for (const [word, value] of [['true', true], ['TRUE', true], ['1', true], ['Yes', true], ['on', true], ['false', false], ['0', false], ['no', false], ['OFF', false]] as const) {
    it(`reads ${word} as ${String(value)}`, () => { assert.deepEqual(parseBoolean('split_by_platform', word), { ok: true, value }) })
  }
  for (const bad of ['2', 'y', 'truee', 'null']) {
    it(`refuses ${bad}`, () => { assert.equal(parseBoolean('split_by_platform', bad).ok, false) })
  }
})

describe('parseCalendarDate', () => {
  it('accepts real dates, including 29 February of a leap year', () => {
    assert.deepEqual(parseCalendarDate('since', '2024-02-29'), { ok: true, value: '2024-02-29' })
  })
  for (const bad of ['2026-02-29', '2026-13-01', '2026-04-31', '2026-1-01', '20260101', '2026-01-01T00:00:00Z', '0000-01-01']) {
    it(`refuses ${bad}`, () => {
      assert.deepEqual(parseCalendarDate('since', bad), { ok: false, issue: { loc: ['query', 'since'], msg: 'Input should be a valid date in the format YYYY-MM-DD', type: 'date_parsing', ctx: {} } })
    })
  }
})

describe('parseEnum', () => {
  it('is case-sensitive and names the pattern', () => {
    assert.deepEqual(parseEnum('type', 'agg', ['daily', 'agg', 'monthly']), { ok: true, value: 'agg' })
    assert.deepEqual(parseEnum('type', 'DAILY', ['daily', 'agg', 'monthly']), {
      ok: false,
      issue: { loc: ['query', 'type'], msg: "String should match pattern '^(daily|agg|monthly)$'", type: 'string_pattern_mismatch', ctx: { pattern: '^(daily|agg|monthly)$' } },
    })
  })
})

describe('QueryParams', () => {
  function issuesOf (params: QueryParams): string[] {
    try {
      params.finish()
      return []
    } catch (error) {
      assert.ok(error instanceof AppError)
      assert.equal(error.code, 'VALIDATION_ERROR')
      return (error.issues ?? []).map((found) => found.loc.join('.'))
    }
  }

  it('collects one issue per offending parameter', () => {
    const params = new QueryParams({ brand_id: 'x', platform: 'nope', split_by_platform: 'maybe', since: '2026-02-30', until: 'soon' })
    params.idList('brand_id')
    params.platformList('platform')
    params.boolean('split_by_platform')
    params.period('2026-11-21')
    assert.deepEqual(issuesOf(params), ['query.brand_id', 'query.platform', 'query.split_by_platform', 'query.since', 'query.until'])
  })

  it('defaults the period to today − 7 days … today', () => {
    assert.deepEqual(new QueryParams({}).period('2026-03-03'), { since: '2026-02-24', until: '2026-03-03' })
  })

  it('defaults since to until − 7 days when only an earlier until is given', () => {
    assert.deepEqual(new QueryParams({ until: '2026-01-10' }).period('2026-03-03'), { since: '2026-01-03', until: '2026-01-10' })
  })

  it('refuses since after until on since', () => {
    const params = new QueryParams({ since: '2026-01-02', until: '2026-01-01' })
    assert.equal(params.period('2026-03-03'), undefined)
    assert.deepEqual(params.issues, [{ loc: ['query', 'since'], msg: 'since (2026-01-02) must not be after until (2026-01-01)', type: 'date_order', ctx: { since: '2026-01-02', until: '2026-01-01' } }])
  })

  it('allows 1096 inclusive days and refuses 1097 on since', () => {
    assert.deepEqual(new QueryParams({ since: '2024-01-01', until: '2026-12-31' }).period('2027-01-01'), { since: '2024-01-01', until: '2026-12-31' })
    const params = new QueryParams({ since: '2023-12-31', until: '2026-12-31' })
    assert.equal(params.period('2027-01-01'), undefined)
    assert.deepEqual(params.issues.map((found) => [found.loc, found.type, found.ctx]), [[['query', 'since'], 'period_too_long', { limit_value: 1096, actual_days: 1097 }]])
  })

  it('treats an empty value as absent', () => {
    const params = new QueryParams({ brand_id: '' })
    assert.equal(params.idList('brand_id'), undefined)
    assert.deepEqual(issuesOf(params), [])
  })
})
