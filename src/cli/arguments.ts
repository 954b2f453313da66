import { InvalidArgumentError } from 'commander'

/** `--brands 1,2,3` → [1, 2, 3]; positive integers, duplicates collapsed, anything else refused. */
export function parseIdList (value: string): number[] {
  const items = value.split(',').map((item) => item.trim())
  const ids = new Set<number>()
  for (const item of items) {
    if (!/^\d+$/.test(item) || !Number.isSafeInteger(Number(item)) || Number(item) === 0) {
      throw new InvalidArgumentError(`expected comma-separated positive integers, got "${value}"`)
    }
    ids.add(Number(item))
  }
  return [...ids].sort((a, b) => a - b)
}
