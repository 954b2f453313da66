/**
 * What the benchmark scripts share: their option checks and a fresh store to load (the same
 * private SQLite file or PostgreSQL schema the tests use, on BENCH_DATABASE_URL).
 */
import type { Dialect } from '../src/storage/db.js'
import { createTestStore, type TestStore } from '../test/helpers/stores.js'

export const BENCH_POSTGRES_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'

/** `--name N` as a positive integer, or exit 2 with one line saying why. */
export function positiveOption (name: string, value: string): number {
  const number = Number(value)
  if (!Number.isSafeInteger(number) || number < 1) {
    console.error(`--${name} must be a positive integer (got "${value}")`)
    process.exit(2)
  }
  return number
}

/** `--store sqlite|postgres`, or exit 2. */
export function storeOption (value: string | undefined): Dialect {
  if (value === 'sqlite' || value === 'postgres') return value
  console.error('--store must be sqlite or postgres')
  process.exit(2)
}

/** A fresh, migrated store dropped by `cleanup()`. */
export async function openFreshBenchStore (dialect: Dialect): Promise<TestStore> {
  return await createTestStore(dialect, BENCH_POSTGRES_URL)
}
