/** The gap rules: one place for how reports, exports and queries treat account-days not reported. */
export { DEFAULT_GAPS_MODE, GAPS_MODES, type GapsMode } from './modes.js'
export type { AccountDays, DatedValue, DayValues } from './account-days.js'
export { isReported, stockOn, type StockValue } from './stocks.js'
export { addFractions, roundFraction, type Fraction } from './fractions.js'
export { accountWindow, appliesTo, carriesOver, combineAccounts, denominatorOf, rateValue, type AccountWindow, type GroupFigures, type MissingAccount, type RateParts } from './rules.js'
