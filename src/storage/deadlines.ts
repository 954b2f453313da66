/**
 * How long the service waits on its database (docs/reliability.md "Bounded waits"). `serve` opens
 * the store it answers requests from with SERVING_DEADLINES; migrations, imports and the other CLI
 * commands run without them (a 340,000-row import is one long transaction, and must not be cut
 * at 2 s).
 *
 * With these, a request whose database hangs gets its answer (500) at most
 * `acquireMs + queryMs` = 3 s after its first call to the hung store.
 */
export interface StoreDeadlines {
  /**
   * PostgreSQL: getting a connection — opening a new one, or waiting for a pooled one to be free
   * (pg `connectionTimeoutMillis`, used by pg-pool for both).
   */
  acquireMs: number
  /** PostgreSQL: `statement_timeout`, set on every connection: the server cancels a slower statement. */
  statementMs: number
  /**
   * PostgreSQL: how long the client waits for an answer (pg `query_timeout`), for a server that
   * does not answer at all (stopped, partitioned) and so cannot enforce `statement_timeout`.
   */
  queryMs: number
  /** SQLite: `busy_timeout`, the longest wait for a lock held by another connection (an import). */
  sqliteBusyMs: number
  /**
   * PostgreSQL: `statement_timeout` (and the read timeout, plus a margin) of a heavy report's
   * statement (src/storage/heavy-reads.ts). The heavy lane bounds how many run at once, so a
   * 100-brand year by week and platform at scale M may take seconds without holding light requests
   * back; a request's own statements keep `statementMs`.
   */
  heavyStatementMs: number
}

export const SERVING_DEADLINES: StoreDeadlines = {
  acquireMs: 1000,
  statementMs: 2000,
  queryMs: 2000,
  sqliteBusyMs: 1000,
  heavyStatementMs: 30_000,
}
