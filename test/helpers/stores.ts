import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { createStore, type Dialect, type Store } from '../../src/storage/db.js'
import { MIGRATION_LOCK_KEY, migrateToLatest } from '../../src/storage/migrate.js'

/** Every storage test runs once per dialect (STYLE.md §11). */
export const DIALECTS: readonly Dialect[] = ['sqlite', 'postgres']

/** A new schema with a random name, and a DATABASE_URL whose search_path names it (for child processes). */
export async function createSchema (postgresUrl: string, prefix = 't'): Promise<{ schema: string, databaseUrl: string }> {
  const schema = `${prefix}_${randomBytes(6).toString('hex')}`
  const admin = new pg.Client({ connectionString: postgresUrl })
  await admin.connect()
  try {
    await admin.query(`create schema ${schema}`)
  } finally {
    await admin.end()
  }
  const url = new URL(postgresUrl)
  url.searchParams.set('options', `-c search_path=${schema}`)
  return { schema, databaseUrl: url.toString() }
}

/**
 * Drops a test schema while holding the migration lock (src/storage/migrate.ts): test files run
 * in parallel, and a migration reading the catalog while another file's schema disappears fails.
 */
export async function dropSchema (postgresUrl: string, schema: string): Promise<void> {
  const dropper = new pg.Client({ connectionString: postgresUrl })
  await dropper.connect()
  try {
    await dropper.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_KEY])
    await dropper.query(`drop schema if exists ${schema} cascade`)
  } finally {
    await dropper.end()
  }
}

/** The PostgreSQL server tests use; each test store gets its own schema in it. */
export const TEST_POSTGRES_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'

/**
 * A new PostgreSQL schema, migrated on a connection of its own without deadlines: a test that
 * then opens the schema with shortened deadlines must not have its setup cut by them (on a busy
 * machine a migration's statement can take longer than the few hundred ms such a test allows).
 */
export async function createMigratedSchema (postgresUrl = TEST_POSTGRES_URL): Promise<string> {
  const { schema } = await createSchema(postgresUrl)
  const migrating = createStore({ kind: 'postgres', url: postgresUrl, schema })
  try {
    await migrateToLatest(migrating)
  } finally {
    await migrating.destroy()
  }
  return schema
}

export interface TestStore {
  store: Store
  /** A DATABASE_URL naming this same store, for CLI and server tests. */
  databaseUrl: string
  /** The schema name (PostgreSQL) so a child process can be pointed at it. */
  schema?: string
  /** Closes connections and deletes the database or schema. */
  cleanup: () => Promise<void>
}

/**
 * A fresh, migrated store that no other test or benchmark run can see (benchmarks pass their own
 * PostgreSQL URL): an SQLite file of its own, or a
 * PostgreSQL schema with a random name, dropped afterwards.
 */
export async function createTestStore (dialect: Dialect, postgresUrl = TEST_POSTGRES_URL): Promise<TestStore> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'pa-test-'))
    const file = join(dir, 'test.sqlite')
    const store = createStore({ kind: 'sqlite', file })
    await migrateToLatest(store)
    return {
      store,
      databaseUrl: `sqlite:${file}`,
      cleanup: async () => {
        await store.destroy()
        rmSync(dir, { recursive: true, force: true })
      },
    }
  }

  const { schema, databaseUrl } = await createSchema(postgresUrl)
  const store = createStore({ kind: 'postgres', url: postgresUrl, schema })
  await migrateToLatest(store)
  return {
    store,
    databaseUrl,
    schema,
    cleanup: async () => {
      await store.destroy()
      await dropSchema(postgresUrl, schema)
    },
  }
}

export interface EmptyStore {
  /** A DATABASE_URL naming a store with no schema yet: an SQLite file not created, or an empty PostgreSQL schema. */
  databaseUrl: string
  dialect: Dialect
  /** A store connected to it (opened on first call), to look at what a command or a server wrote. */
  open: () => Store
  /** Closes that store and deletes the file or drops the schema. */
  cleanup: () => Promise<void>
}

/** Where a fresh store would be, with nothing migrated: for `migrate` and `serve`, which create the schema. */
export async function createEmptyStore (dialect: Dialect, postgresUrl = TEST_POSTGRES_URL): Promise<EmptyStore> {
  let store: Store | undefined
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'pa-empty-'))
    const file = join(dir, 'store', 'pa.sqlite')
    return {
      databaseUrl: `sqlite:${file}`,
      dialect,
      open: () => (store ??= createStore({ kind: 'sqlite', file })),
      cleanup: async () => {
        await store?.destroy()
        rmSync(dir, { recursive: true, force: true })
      },
    }
  }
  const { schema, databaseUrl } = await createSchema(postgresUrl)
  return {
    databaseUrl,
    dialect,
    open: () => (store ??= createStore({ kind: 'postgres', url: postgresUrl, schema })),
    cleanup: async () => {
      await store?.destroy()
      await dropSchema(postgresUrl, schema)
    },
  }
}
