import { sql, type CompiledQuery, type RawBuilder } from 'kysely'
import type { Scope } from '../../domain/scope.js'
import type { Dialect, Store } from '../db.js'

/**
 * SQL pieces of the status reads (GET /data-status, /analytics/?include=status), where the
 * dialects differ: typed literal rows, day arithmetic on `date` columns (text `YYYY-MM-DD` in
 * SQLite, `date` in PostgreSQL). Every value is a bound parameter; platform codes are constants.
 */

/** A parameter typed for a VALUES list: PostgreSQL types an untyped parameter as text. */
export function typed (dialect: Dialect, value: unknown, type: 'text' | 'bigint' | 'date'): RawBuilder<unknown> {
  // SQLite would read `cast(… as date)` as NUMERIC affinity (2026-11-04 → 2026): dates stay text there.
  return dialect === 'postgres' ? sql`cast(${value} as ${sql.raw(type)})` : sql`${value}`
}

/** Whole days from `a` to `b` (b − a), both date columns or typed dates. */
export function daysApart (dialect: Dialect, a: RawBuilder<unknown>, b: RawBuilder<unknown>): RawBuilder<number> {
  return dialect === 'postgres'
    ? sql<number>`(${b} - ${a})`
    : sql<number>`cast(julianday(${b}) - julianday(${a}) as integer)`
}

/** The later / earlier of two dates (SQLite's min and max of two arguments are scalar). */
export function laterDate (dialect: Dialect, a: RawBuilder<unknown>, b: RawBuilder<unknown>): RawBuilder<string> {
  return dialect === 'postgres' ? sql<string>`greatest(${a}, ${b})` : sql<string>`max(${a}, ${b})`
}
export function earlierDate (dialect: Dialect, a: RawBuilder<unknown>, b: RawBuilder<unknown>): RawBuilder<string> {
  return dialect === 'postgres' ? sql<string>`least(${a}, ${b})` : sql<string>`min(${a}, ${b})`
}

/** The accounts of a scope, as a condition on `accounts` aliased `a` (brands: never empty here). */
export function accountsInScope (scope: Scope): RawBuilder<boolean> {
  if (scope.kind === 'accounts') {
    return sql<boolean>`a.platform = ${scope.platform} and a.account_id in (${sql.join(scope.accounts.map((account) => Number(account.account_id)))})`
  }
  const platforms = scope.platforms === undefined ? sql`` : sql` and a.platform in (${sql.join(scope.platforms)})`
  return sql<boolean>`a.brand_id in (${sql.join(scope.brandIds)})${platforms}`
}

/**
 * Runs a compiled read: on the main connection, or — for a read whose size makes it heavy —
 * where heavy statements run (call that from inside `store.heavy.admit`).
 */
export async function readRows<Row> (store: Store, query: CompiledQuery, heavy: boolean): Promise<Row[]> {
  if (heavy) return await store.heavy.rows({ sql: query.sql, parameters: query.parameters, arrays: false }) as Row[]
  return (await store.db.executeQuery<Row>(query)).rows
}
