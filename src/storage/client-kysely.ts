import { Kysely, PostgresDialect } from 'kysely'
import type pg from 'pg'
import type { Database } from './database.js'

/**
 * A Kysely on ONE pg client, for code that must run inside a transaction the client already
 * holds (the import's: its writer talks to pg directly, then records the sync through the
 * repositories, which take a Kysely). Nothing is released or closed through it: the client stays
 * its owner's.
 */
export function kyselyOnClient (client: pg.PoolClient): Kysely<Database> {
  const borrowed = { query: client.query.bind(client), release: () => {} }
  return new Kysely<Database>({
    dialect: new PostgresDialect({ pool: { connect: async () => borrowed, end: async () => {} } as never }),
  })
}
