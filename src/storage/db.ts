import { mkdirSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { dirname } from 'node:path'
import SqliteDatabase from 'better-sqlite3'
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely'
import { LRUCache } from 'lru-cache'
import pg from 'pg'
import type { DatabaseConfig } from '../config/schema.js'
import type { Database } from './database.js'
import type { StoreDeadlines } from './deadlines.js'
import { createHeavyReads, type HeavyReadOptions, type HeavyReads, type ReadExecutor } from './heavy-reads.js'
import { readStatementsOf } from './read-pool/read-statements.js'
import { createSqliteReadPool, type SqliteReadPool, type SqliteReadPoolOptions } from './read-pool/sqlite-read-pool.js'

/**
 * Opens the store named by the configuration: better-sqlite3 for `sqlite:` URLs, a pg pool for
 * `postgres://`. The same Kysely<Database> serves both; the raw handles are exposed for the few
 * bulk paths (import) that use each driver's fastest interface.
 */

export type Dialect = 'sqlite' | 'postgres'

interface StoreBase {
  db: Kysely<Database>
  /** Closes every connection; safe to call twice. */
  destroy: () => Promise<void>
  /** Cheap liveness probe used by /health. Rejects when the store does not answer. */
  ping: () => Promise<void>
  /** Where heavy reads run, bounded (heavy-reads.ts). */
  heavy: HeavyReads
  /**
   * Where partner reads go (reports, posts, /me, the feed, data status): read replicas that hold
   * every committed import when DATABASE_REPLICA_URLS names some (src/storage/replicas/), else
   * this store. Logins, token and grant checks and every write use the store itself.
   */
  reads: ReadRouting
}

/** A store's connections: PostgreSQL's pool (SQLite has one connection and no pool). */
export interface PoolStats {
  inUse: number
  idle: number
  /** Callers waiting for a connection. */
  waiting: number
}

/** One read replica as /health and /metrics show it (docs/operations.md "Read replicas"). */
export interface ReplicaStatus {
  /** 1-based position in DATABASE_REPLICA_URLS (its URL is not shown: /health is public). */
  id: number
  /**
   * `ok`: holds every committed import and event, within REPLICA_MAX_LAG_MS — reads go to it;
   * `behind`: misses an import or event the primary has; `lagging`: further behind than
   * REPLICA_MAX_LAG_MS; `down`: did not answer its check (or is no standby); `unchecked`: not yet checked.
   */
  state: 'ok' | 'behind' | 'lagging' | 'down' | 'unchecked'
  /** How long it has been missing WAL the primary had, ms (null when unknown). */
  lagMs: number | null
  /** True when reads do not go to it now (any state but a fresh `ok`). */
  skipped: boolean
  pool: PoolStats
}

/** Partner reads routed so far, by where they went and why. */
export interface RoutingCounts {
  /** Served by a replica. */
  replica: number
  /** Sent to the primary because no replica was fresh and current. */
  primaryNoReplica: number
  /** Failed on a replica and answered by the primary instead. */
  primaryAfterReplicaError: number
}

export interface ReadRouting {
  /**
   * Runs one partner read on a replica holding every committed import, or on the primary. A read
   * that fails on a replica (anything but an AppError) is run again on the primary, so a replica
   * that dies fails no request. `work` may run twice: it must only read.
   */
  run: <T>(work: (store: Store) => Promise<T>) => Promise<T>
  /**
   * The highest sync id whose events partners may see now (the feed and the webhooks hold back
   * later ones): after an event is shown, no instance reads data older than its sync from any
   * replica. undefined when there are no replicas: every committed sync is visible.
   */
  visibleThroughSyncId: () => number | undefined
  replicas: () => ReplicaStatus[]
  counts: () => RoutingCounts
  close: () => Promise<void>
}

/** The routing of a store without replicas: every read on the store itself. */
export function directReads (store: Store): ReadRouting {
  let reads = 0
  return {
    run: async (work) => {
      reads += 1
      return await work(store)
    },
    visibleThroughSyncId: () => undefined,
    replicas: () => [],
    counts: () => ({ replica: 0, primaryNoReplica: reads, primaryAfterReplicaError: 0 }),
    close: async () => {},
  }
}

export interface SqliteStore extends StoreBase {
  dialect: 'sqlite'
  sqlite: SqliteDatabase.Database
}

export interface PostgresStore extends StoreBase {
  dialect: 'postgres'
  pool: pg.Pool
  poolStats: () => PoolStats
}

export type Store = SqliteStore | PostgresStore

const PG_INT8 = 20
const PG_NUMERIC = 1700
const PG_DATE = 1082
const PG_TIMESTAMPTZ = 1184

/**
 * Per-pool type parsers: bigint and numeric sums come back as JS numbers (our counts and micro-unit
 * sums stay far below 2^53), dates as `YYYY-MM-DD` strings, timestamps as ISO-8601 UTC strings —
 * the same values better-sqlite3 returns for the same columns.
 */
export function pgTypes (): pg.CustomTypesConfig {
  return {
    getTypeParser: ((oid: number, format?: string) => {
      if (oid === PG_INT8 || oid === PG_NUMERIC) return (value: string) => Number(value)
      if (oid === PG_DATE) return (value: string) => value
      if (oid === PG_TIMESTAMPTZ) return (value: string) => new Date(value).toISOString()
      return pg.types.getTypeParser(oid, format as 'text')
    }) as pg.CustomTypesConfig['getTypeParser'],
  }
}

/** Distinct statements kept prepared per SQLite connection. */
const STATEMENT_CACHE_SIZE = 500

/**
 * better-sqlite3 behind Kysely, with each distinct SQL text prepared once and reused: Kysely's
 * SQLite driver prepares on every execution, which cost about a tenth of a request's time.
 * Statements are run to completion one at a time (better-sqlite3 is synchronous), so sharing one
 * per text is safe.
 */
function preparingOnce (sqlite: SqliteDatabase.Database): SqliteDatabase.Database {
  const statements = new LRUCache<string, SqliteDatabase.Statement>({ max: STATEMENT_CACHE_SIZE })
  return new Proxy(sqlite, {
    get (target, property, receiver) {
      if (property !== 'prepare') {
        const value = Reflect.get(target, property, receiver) as unknown
        // Native methods must run on the real database object, not on the proxy.
        return typeof value === 'function' ? value.bind(target) : value
      }
      return (text: string) => {
        let statement = statements.get(text)
        if (statement === undefined) {
          statement = target.prepare(text)
          statements.set(text, statement)
        }
        return statement
      }
    },
  })
}

export interface StoreOptions {
  /** Bounds on every wait (src/storage/deadlines.ts); `serve` passes SERVING_DEADLINES, the CLI none. */
  deadlines?: StoreDeadlines
  /** The heavy-read lane's bounds (heavy-reads.ts); the defaults suit serving. */
  heavyReads?: HeavyReadOptions
  /**
   * Tests only: a module each SQLite read worker imports before its own
   * (read-pool/sqlite-read-pool.ts); one that throws makes the worker fail while loading.
   */
  readWorkerPreload?: URL
  /** Admit heavy reports through this store's lane instead of a new one (a replica shares its primary's). */
  heavyLaneOf?: Store
}

/**
 * Heavy reports at once: one core is left to the main thread, which answers every light request
 * and shapes each heavy report's entries. Measured on 2 cores (docs/benchmarks.md "Heavy never
 * stalls light"): with two at once, 100-brand monthly years kept the main thread saturated and
 * daily pages waited 300 ms at p99; with one, 34 ms, for 25 % fewer heavy reports a second.
 * At most 4: beyond that the pool's connections (PostgreSQL, 10) are better kept for light requests.
 */
const HEAVY_AT_ONCE = Math.max(1, Math.min(4, availableParallelism() - 1))

/**
 * Heavy SQLite reads: in worker threads reading the same file, started on the first heavy read
 * (CLI commands never start them); an in-memory database only the main connection can see.
 */
/**
 * One heavy statement on a pooled connection with the heavy deadline (StoreDeadlines.heavyStatementMs)
 * in place of the pool's: `set local` inside a transaction, so the connection goes back to the pool
 * with the request deadline it had; the read timeout a margin past the server's own.
 */
async function withHeavyDeadline (pool: pg.Pool, statementMs: number, query: pg.QueryConfig): Promise<unknown[]> {
  const client = await pool.connect()
  let failure: Error | undefined
  try {
    await client.query('begin read only')
    await client.query(`set local statement_timeout = ${Math.trunc(statementMs)}`)
    const result = await client.query<unknown[]>({ ...query, query_timeout: statementMs + 5000 } as pg.QueryConfig)
    await client.query('commit')
    return result.rows
  } catch (error) {
    // The connection is dropped, not pooled (the server rolls back its transaction): after a cut
    // statement or a read timeout its state is not worth trusting.
    failure = error as Error
    throw error
  } finally {
    client.release(failure)
  }
}

function sqliteExecutor (sqlite: SqliteDatabase.Database, file: string, pool: Omit<SqliteReadPoolOptions, 'onFailure'>): ReadExecutor {
  if (file === ':memory:') {
    const read = readStatementsOf(sqlite)
    return { run: async (task) => read(task), close: async () => {} }
  }
  let workers: SqliteReadPool | undefined
  const listeners: Array<(error: Error) => void> = []
  return {
    run: async (task) => {
      workers ??= createSqliteReadPool(file, { ...pool, onFailure: (error) => { for (const listener of listeners) listener(error) } })
      return await workers.run(task)
    },
    watchFailures: (listener) => { listeners.push(listener) },
    close: async () => { await workers?.close() },
  }
}

/**
 * The URL without its `options` parameter, and that parameter: pg lets a URL's `options` replace
 * the pool's, so they are merged by hand (docs/storage.md names `?options=-c search_path=…`).
 */
function splitOptions (connectionString: string): { url: string, options: string | undefined } {
  let parsed: URL
  try {
    parsed = new URL(connectionString)
  } catch {
    return { url: connectionString, options: undefined }
  }
  const options = parsed.searchParams.get('options') ?? undefined
  if (options === undefined) return { url: connectionString, options }
  parsed.searchParams.delete('options')
  return { url: parsed.toString(), options }
}

export function createStore (config: DatabaseConfig, options: StoreOptions = {}): Store {
  const { deadlines } = options
  if (config.kind === 'sqlite') {
    if (config.file !== ':memory:') mkdirSync(dirname(config.file), { recursive: true })
    const sqlite = new SqliteDatabase(config.file)
    // WAL lets readers (the server) work while a writer (an import) holds its transaction.
    sqlite.pragma('journal_mode = WAL')
    sqlite.pragma('synchronous = NORMAL')
    sqlite.pragma('foreign_keys = ON')
    sqlite.pragma(`busy_timeout = ${deadlines?.sqliteBusyMs ?? 5000}`)
    const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: preparingOnce(sqlite) }) })
    const workers = options.heavyReads?.concurrency ?? HEAVY_AT_ONCE
    const executor = sqliteExecutor(sqlite, config.file, { workers, busyMs: deadlines?.sqliteBusyMs ?? 5000, preload: options.readWorkerPreload })
    const heavy = createHeavyReads(executor, workers, options.heavyReads, options.heavyLaneOf?.heavy)
    let destroyed = false
    return withDirectReads({
      dialect: 'sqlite',
      db,
      sqlite,
      heavy,
      // Reads the schema page, so a locked or unreadable file fails the probe (select 1 alone reads nothing).
      ping: async () => { sqlite.prepare('select 1 from sqlite_master limit 1').get() },
      destroy: async () => {
        if (destroyed) return
        destroyed = true
        await heavy.close()
        await db.destroy()
      },
    })
  }

  const { url, options: urlOptions } = splitOptions(config.url)
  const pool = new pg.Pool({
    connectionString: url,
    types: pgTypes(),
    max: 10,
    // A store that does not answer must fail /health quickly rather than hang it.
    connectionTimeoutMillis: deadlines?.acquireMs ?? 3000,
    ...(deadlines === undefined ? {} : { statement_timeout: deadlines.statementMs, query_timeout: deadlines.queryMs }),
    // Serving (deadlines set): hot statements are prepared by name (src/storage/prepared.ts); a
    // generic plan spares each execution the 1–2 ms of planning PostgreSQL otherwise repeats per
    // call (measured on the agg statement), and their plans do not depend on the values. The CLI
    // (one-off statements, migrations) gains nothing from it and keeps PostgreSQL's default.
    // The URL's own `options` (e.g. a search_path) come after, so they win where they overlap.
    options: [...(deadlines === undefined ? [] : ['-c plan_cache_mode=force_generic_plan']), ...(config.schema === undefined ? [] : [`-c search_path=${config.schema}`]), ...(urlOptions === undefined ? [] : [urlOptions])].join(' '),
  })
  // A client losing its connection must not crash the process; the next query reconnects. The
  // pool listens only while a client is idle: a connection reset while one is checked out (between
  // two statements, say) would otherwise throw from the socket (seen when a replica was killed).
  pool.on('error', () => {})
  pool.on('connect', (client) => { client.on('error', () => {}) })
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) })
  const executor: ReadExecutor = {
    run: async (task) => {
      const values = Array.isArray(task.parameters) ? task.parameters : []
      const query = { name: task.name, text: task.sql, values, ...(task.arrays ? { rowMode: 'array' as const } : {}) }
      if (deadlines === undefined) return (await pool.query<unknown[]>(query)).rows
      return await withHeavyDeadline(pool, deadlines.heavyStatementMs, query)
    },
    close: async () => {},
  }
  const heavy = createHeavyReads(executor, options.heavyReads?.concurrency ?? HEAVY_AT_ONCE, options.heavyReads, options.heavyLaneOf?.heavy)
  let destroyed = false
  return withDirectReads({
    dialect: 'postgres',
    db,
    pool,
    heavy,
    poolStats: () => ({ inUse: pool.totalCount - pool.idleCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    ping: async () => { await sql`select 1`.execute(db) },
    destroy: async () => {
      if (destroyed) return
      destroyed = true
      await db.destroy()
    },
  })
}

function withDirectReads<S extends Omit<Store, 'reads'>> (store: S): S & { reads: ReadRouting } {
  const complete = store as S & { reads: ReadRouting }
  complete.reads = directReads(complete as unknown as Store)
  return complete
}
