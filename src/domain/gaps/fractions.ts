/** Exact non-negative fractions for rates (sums of quotients stay exact until the one rounding). */
export interface Fraction {
  numerator: bigint
  denominator: bigint
}

export const ZERO_FRACTION: Fraction = { numerator: 0n, denominator: 1n }

function gcd (a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b]
  return a
}

/** a + b, reduced. */
export function addFractions (a: Fraction, b: Fraction): Fraction {
  const numerator = a.numerator * b.denominator + b.numerator * a.denominator
  const denominator = a.denominator * b.denominator
  const divisor = gcd(numerator, denominator)
  return divisor > 1n ? { numerator: numerator / divisor, denominator: denominator / divisor } : { numerator, denominator }
}

/** The fraction rounded half-up to `decimals` places, as a number (0 when the denominator is 0). */
export function roundFraction (fraction: Fraction, decimals: number): number {
  if (fraction.denominator === 0n) return 0
  const scale = 10n ** BigInt(decimals)
  const scaled = (2n * fraction.numerator * scale + fraction.denominator) / (2n * fraction.denominator)
  return Number(scaled) / Number(scale)
}
