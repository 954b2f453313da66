import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { roundedRatio } from '../../src/domain/rounding.js'

/** The definition, in BigInt only: floor((2·n·10^d + den) / (2·den)) / 10^d. */
function reference (numerator: number, denominator: number, decimals: number): number {
  if (denominator === 0) return 0
  const scale = 10n ** BigInt(decimals)
  return Number((BigInt(numerator) * scale * 2n + BigInt(denominator)) / (2n * BigInt(denominator))) / Number(scale)
}

describe('roundedRatio (half-up, exact)', () => {
  it('rounds the documented examples half-up', () => {
    assert.equal(roundedRatio(1, 3, 6), 0.333333)
    assert.equal(roundedRatio(2, 3, 6), 0.666667)
    assert.equal(roundedRatio(1, 8, 2), 0.13) // 0.125 → up
    assert.equal(roundedRatio(1, 200, 2), 0.01) // 0.005 → up
    assert.equal(roundedRatio(1, 201, 2), 0)
    assert.equal(roundedRatio(5, 0, 6), 0)
    assert.equal(roundedRatio(7, 7, 6), 1)
  })

  it('agrees with the BigInt definition for every size of input, past 2^53 included', () => {
    const size = fc.oneof(fc.integer({ min: 0, max: 1000 }), fc.integer({ min: 0, max: 2 ** 31 }), fc.maxSafeInteger().filter((n) => n >= 0))
    fc.assert(fc.property(size, size.filter((n) => n > 0), fc.constantFrom(0, 2, 6), (numerator, denominator, decimals) => {
      assert.equal(roundedRatio(numerator, denominator, decimals), reference(numerator, denominator, decimals))
    }), { numRuns: 20_000 })
  })

  it('agrees exactly at the halves, where a double division could round across the boundary', () => {
    // n/den = k + 0.5·10^-d exactly (den even), and the neighbours one unit away, near the 2^53 bound.
    for (const denominator of [2, 4, 1_000_000, 2 ** 20, 2 ** 30, 2 ** 40]) {
      for (const decimals of [2, 6]) {
        const scale = 10 ** decimals
        for (const k of [0, 1, 12_345, Math.floor(Number.MAX_SAFE_INTEGER / (4 * denominator * scale))]) {
          const half = (2 * k + 1) * (denominator / 2)
          for (const scaledNumerator of [half - 1, half, half + 1]) {
            if (scaledNumerator < 0 || scaledNumerator % scale !== 0) continue
            const numerator = scaledNumerator / scale
            assert.equal(roundedRatio(numerator, denominator, decimals), reference(numerator, denominator, decimals), `${numerator}/${denominator}, ${decimals}`)
          }
        }
      }
    }
  })
})
