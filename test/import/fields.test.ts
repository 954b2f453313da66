import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { derivePostType, resolvePostType } from '../../src/domain/post-types.js'
import { checkCount, checkDate, checkMoney, checkTimestamp, FieldError } from '../../src/services/import/fields.js'

const message = (value: unknown): string | undefined => (value instanceof FieldError ? value.message : undefined)

describe('import field checks (pure)', () => {
  it('money becomes exact micro-units from the number as written, at most 6 decimals', () => {
    assert.equal(checkMoney('revenue', 0.1), 100_000)
    assert.equal(checkMoney('revenue', 12.345678), 12_345_678)
    assert.equal(checkMoney('revenue', 1e-6), 1)
    assert.equal(checkMoney('revenue', 123456789), 123_456_789_000_000)
    assert.equal(checkMoney('revenue', 0), 0)
    assert.equal(checkMoney('revenue', null), null)
    assert.equal(message(checkMoney('revenue', 1e-7)), 'revenue has more than 6 decimals (got 1e-7); money is stored in micro-units')
    assert.equal(message(checkMoney('revenue', 0.1 + 0.2)), 'revenue has more than 6 decimals (got 0.30000000000000004); money is stored in micro-units')
    assert.equal(message(checkMoney('revenue', -1)), 'revenue must not be negative (got -1)')
    assert.equal(message(checkMoney('revenue', 1e21)), 'revenue is too large (got 1e+21)')
  })

  /** `units / 10^decimals` written out as decimal text, e.g. (12345n, 3) → "12.345", (5n, 2) → "0.05". */
  const decimalText = (units: bigint, decimals: number): string => {
    const digits = units.toString().padStart(decimals + 1, '0')
    return decimals === 0 ? digits : `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`
  }

  // Up to 10^15 units: at most 15 significant digits, so the number JSON gives for the text is
  // that decimal exactly when written back (what the file said is what is read).
  it('money: any amount written with up to 6 decimals is accepted as its exact micro-units, or refused as too large past 2^53 − 1', () => {
    fc.assert(fc.property(fc.bigInt({ min: 0n, max: 10n ** 15n }), fc.integer({ min: 0, max: 6 }), (units, decimals) => {
      const value = Number(decimalText(units, decimals))
      const micros = units * 10n ** BigInt(6 - decimals)
      const checked = checkMoney('revenue', value)
      if (micros > BigInt(Number.MAX_SAFE_INTEGER)) {
        assert.equal(message(checked), `revenue is too large (got ${JSON.stringify(value)})`)
      } else {
        assert.equal(checked, Number(micros), decimalText(units, decimals))
      }
    }), { numRuns: 3000 })
  })

  it('money: 16-digit amounts (above the fast path, up to 2^53 − 1 micro-units) are accepted exactly when the number is the decimal written', () => {
    fc.assert(fc.property(fc.bigInt({ min: 10n ** 15n, max: BigInt(Number.MAX_SAFE_INTEGER) }), fc.integer({ min: 0, max: 6 }), (units, decimals) => {
      const text = decimalText(units, decimals)
      const value = Number(text)
      // Only texts a double holds exactly as written (the file's number is the number read).
      fc.pre(String(value) === (text.includes('.') ? text.replace(/\.?0+$/, '') : text))
      const micros = units * 10n ** BigInt(6 - decimals)
      const checked = checkMoney('revenue', value)
      if (micros > BigInt(Number.MAX_SAFE_INTEGER)) assert.equal(message(checked), `revenue is too large (got ${JSON.stringify(value)})`)
      else assert.equal(checked, Number(micros), text)
    }), { numRuns: 3000 })
  })

  it('money: any amount written with 7 to 9 significant decimals is refused, naming the value', () => {
    const lastDigitNotZero = fc.bigInt({ min: 1n, max: 10n ** 15n - 1n }).filter((units) => units % 10n !== 0n)
    fc.assert(fc.property(lastDigitNotZero, fc.integer({ min: 7, max: 9 }), (units, decimals) => {
      const value = Number(decimalText(units, decimals))
      assert.equal(message(checkMoney('revenue', value)), `revenue has more than 6 decimals (got ${JSON.stringify(value)}); money is stored in micro-units`)
    }), { numRuns: 2000 })
  })

  it('counts are null or non-negative safe integers', () => {
    assert.equal(checkCount('views', 0), 0)
    assert.equal(checkCount('views', null), null)
    assert.equal(message(checkCount('views', 2 ** 53)), 'views is too large (got 9007199254740992)')
    assert.equal(message(checkCount('views', true)), 'views must be an integer or null (got true)')
  })

  it('dates must exist in the calendar', () => {
    assert.equal(checkDate('date', '2028-02-29'), '2028-02-29')
    assert.ok(checkDate('date', '2026-02-29') instanceof FieldError)
    assert.ok(checkDate('date', '2026-1-01') instanceof FieldError)
    assert.ok(checkDate('date', 20261101) instanceof FieldError)
  })

  it('timestamps need Z or an offset and are stored as whole-second UTC', () => {
    assert.equal(checkTimestamp('t', '2026-11-01T10:30:00Z'), '2026-11-01T10:30:00Z')
    assert.equal(checkTimestamp('t', '2026-11-01T00:30:15.987-05:30'), '2026-11-01T06:00:15Z')
    assert.equal(checkTimestamp('t', '2026-12-31T23:30+0100'), '2026-12-31T22:30:00Z')
    assert.equal(checkTimestamp('t', '2027-01-01T00:10:00+01:00'), '2026-12-31T23:10:00Z')
    assert.ok(checkTimestamp('t', '2026-11-01T10:30:00') instanceof FieldError, 'no zone: ambiguous')
    assert.ok(checkTimestamp('t', '2026-02-30T10:30:00Z') instanceof FieldError)
    assert.ok(checkTimestamp('t', '2026-11-01T10:60:00Z') instanceof FieldError)
  })
})

describe('post types', () => {
  it('derives the category from each platform\'s own type names, case-insensitively', () => {
    assert.equal(derivePostType('fb', 'video_inline'), 'video')
    assert.equal(derivePostType('fb', 'album'), 'carousel')
    assert.equal(derivePostType('ig', 'REELS'), 'reel')
    assert.equal(derivePostType('ig', 'CAROUSEL_ALBUM'), 'carousel')
    assert.equal(derivePostType('ig', 'STORY'), 'story')
    assert.equal(derivePostType('yt', 'short'), 'short')
    assert.equal(derivePostType('li', 'document'), 'document')
    assert.equal(derivePostType('li', 'article'), 'text')
    assert.equal(derivePostType('pi', 'pin'), 'image')
    assert.equal(derivePostType('pi', 'video_pin'), 'video')
    assert.equal(derivePostType('tk', 'image'), 'image', 'a category name is understood on any platform')
    assert.equal(derivePostType('tk', 'hologram'), 'other')
    assert.equal(derivePostType('da', null), 'other')
  })

  it('accepts the categories and the alias reels, nothing else', () => {
    assert.equal(resolvePostType(' Reels '), 'reel')
    assert.equal(resolvePostType('DOCUMENT'), 'document')
    assert.equal(resolvePostType('podcast'), undefined)
  })
})
