/**
 * `gaps=` on GET /analytics/ (docs/analytics.md "Missing data"): how a report treats an account
 * that did not report on a day. `zero`, the default, is the contract's answer: a missing account
 * adds nothing, so a stock sums fewer accounts and a rate divides one account's numerator by
 * another's denominator. `carry` applies the gap rules of this folder.
 */
export const GAPS_MODES = ['zero', 'carry'] as const
export type GapsMode = (typeof GAPS_MODES)[number]
export const DEFAULT_GAPS_MODE: GapsMode = 'zero'
