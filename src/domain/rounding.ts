/**
 * Exact half-up rounding (docs/api-reference.md "GET /analytics/"): every rounded figure is computed from exact integers
 * (micro-units, counts), never by adding or dividing floats and hoping. Stored money is never
 * negative (the import refuses it: docs/import.md); microsToCents still rounds a negative amount
 * half away from zero, the symmetric reading of half-up, should one ever reach it.
 */

const MICROS_PER_CENT = 10_000

/** Integer micro-units → integer cents, half-up. */
export function microsToCents (micros: number): number {
  const magnitude = Math.floor((Math.abs(micros) + MICROS_PER_CENT / 2) / MICROS_PER_CENT)
  return micros < 0 ? -magnitude : magnitude
}

/** Integer cents → the 2-decimal number that prints as that amount. */
export function centsToAmount (cents: number): number {
  return cents / 100
}

/** A 2-decimal number (as produced by centsToAmount) → its exact integer cents. */
export function amountToCents (amount: number): number {
  return Math.round(amount * 100)
}

/**
 * numerator / denominator rounded half-up to `decimals` places, exactly. 0 when the denominator is
 * 0. Inputs are non-negative integers. The rounded value is floor((2·n·10^d + den) / (2·den)) / 10^d;
 * while every product stays below 2^53 that floor is computed exactly in doubles (the quotient is
 * corrected by one where the division rounded across an integer); beyond, in BigInt
 * (interactions × 10^6 can pass 2^53).
 */
export function roundedRatio (numerator: number, denominator: number, decimals: number): number {
  if (denominator === 0) return 0
  const scale = POWERS_OF_TEN[decimals] ?? 10 ** decimals
  const dividend = 2 * numerator * scale + denominator
  const divisor = 2 * denominator
  if (dividend + divisor <= Number.MAX_SAFE_INTEGER) {
    let scaled = Math.floor(dividend / divisor)
    if (scaled * divisor > dividend) scaled -= 1
    else if ((scaled + 1) * divisor <= dividend) scaled += 1
    // The double nearest the decimal, i.e. what JSON.parse of it gives.
    return scaled / scale
  }
  const bigScale = 10n ** BigInt(decimals)
  const scaled = (BigInt(numerator) * bigScale * 2n + BigInt(denominator)) / (2n * BigInt(denominator))
  return Number(scaled) / Number(bigScale)
}

const POWERS_OF_TEN = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000]

/** An integer number of cents divided by n, rounded half-up to whole cents, as an amount. */
export function averageCents (totalCents: number, n: number): number {
  if (n === 0) return 0
  const magnitude = Math.floor((2 * Math.abs(totalCents) + n) / (2 * n))
  return centsToAmount(totalCents < 0 ? -magnitude : magnitude)
}
