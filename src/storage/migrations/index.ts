import type { Migration } from 'kysely'
import * as initialSchema from './2026_11_21_0000_initial_schema.js'

/**
 * Every migration, by name. Listed statically (not read from the folder) so the same list works
 * from TypeScript sources, from dist/, and inside a bundle. Names sort in apply order.
 */
export const MIGRATIONS: Record<string, Migration> = {
  '2026_11_21_0000_initial_schema': initialSchema,
}
