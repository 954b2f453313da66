import { InvalidArgumentError } from 'commander'

/** Decimal digits naming a positive safe integer. */
function isPositiveId (text: string): boolean {
  return /^\d+$/.test(text) && Number.isSafeInteger(Number(text)) && Number(text) !== 0
}

/** `--brands 1,2,3` → [1, 2, 3]; positive integers, duplicates collapsed, anything else refused. */
export function parseIdList (value: string): number[] {
  const items = value.split(',').map((item) => item.trim())
  const ids = new Set<number>()
  for (const item of items) {
    if (!isPositiveId(item)) {
      throw new InvalidArgumentError(`expected comma-separated positive integers, got "${value}"`)
    }
    ids.add(Number(item))
  }
  return [...ids].sort((a, b) => a - b)
}

const DURATION_UNITS: Record<string, number> = { d: 86_400, h: 3600, m: 60, s: 1 }
/** The longest grace period a rotation may give the old key pair. */
export const MAX_GRACE_SECONDS = 30 * 86_400

/**
 * `--grace 90s`, `15m`, `24h`, `7d` or a combination in that order (`1h30m`) → seconds; from 1 s
 * to 30 days, anything else refused.
 */
export function parseDuration (value: string): number {
  const text = value.trim()
  const match = /^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(text)
  const seconds = match === null || text === ''
    ? Number.NaN
    : ['d', 'h', 'm', 's'].reduce((sum, unit, i) => sum + Number(match[i + 1] ?? 0) * (DURATION_UNITS[unit] ?? 0), 0)
  if (!Number.isSafeInteger(seconds) || seconds < 1 || seconds > MAX_GRACE_SECONDS) {
    throw new InvalidArgumentError(`expected a duration from 1s to 30d such as 90s, 15m, 24h, 7d or 1h30m, got "${value}"`)
  }
  return seconds
}

/** One positive integer id, e.g. `--brand 3`. */
export function parseId (value: string): number {
  if (!isPositiveId(value.trim())) throw new InvalidArgumentError(`expected a positive integer, got "${value}"`)
  return Number(value.trim())
}
