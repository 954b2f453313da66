import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler } from 'kysely'
import type { Database } from '../database.js'
import type { Dialect } from '../db.js'

/**
 * A Kysely that only compiles (no connection): the export process builds its statements
 * (dataset-queries.ts) with it and runs them on its snapshot's own connection.
 */
export function compilingDb (dialect: Dialect): Kysely<Database> {
  return new Kysely<Database>({
    dialect: dialect === 'sqlite'
      ? { createAdapter: () => new SqliteAdapter(), createDriver: () => new DummyDriver(), createIntrospector: (db) => new SqliteIntrospector(db), createQueryCompiler: () => new SqliteQueryCompiler() }
      : { createAdapter: () => new PostgresAdapter(), createDriver: () => new DummyDriver(), createIntrospector: (db) => new PostgresIntrospector(db), createQueryCompiler: () => new PostgresQueryCompiler() },
  })
}
