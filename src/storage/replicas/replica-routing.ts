import { performance } from 'node:perf_hooks'
import type { DatabaseConfig } from '../../config/schema.js'
import { AppError } from '../../domain/errors.js'
import { createStore, type PostgresStore, type ReadRouting, type ReplicaStatus, type RoutingCounts, type Store, type StoreOptions } from '../db.js'
import { LagClock, holdsEverything, primaryPosition, replicaPosition, type Position } from './positions.js'
import { SyncVisibility } from './sync-visibility.js'

/**
 * Read replicas (docs/operations.md "Read replicas"): partner reads go round robin to the
 * replicas that hold every committed import, else to the primary. Every `checkIntervalMs` this
 * instance reads the primary's change clock and WAL position, then each replica's; a replica
 * serves reads only while its last check is younger than FRESH_CHECKS intervals and found it
 * holding everything the primary had when that check began, at most `maxLagMs` behind. A replica
 * that stops answering is skipped from its first failed read or check; one that catches up is used
 * again from its next check.
 */

type PostgresConfig = Extract<DatabaseConfig, { kind: 'postgres' }>

export interface ReplicaOptions {
  urls: readonly string[]
  maxLagMs: number
  checkIntervalMs: number
  /** The primary's schema (tests), put on each replica's search_path too. */
  schema?: string | undefined
  /** How the replicas' serving pools wait (the primary's deadlines). */
  storeOptions: StoreOptions
}

/** A check serves this many intervals: the next one has one interval to finish before it lapses. */
export const FRESH_CHECKS = 2
/** Added to the fresh window before an event is shown (sync-visibility.ts). */
export const VISIBILITY_MARGIN_MS = 100

export type ReplicaEvent = { id: number, state: ReplicaStatus['state'], lagMs: number | null, error?: unknown }

interface Replica {
  id: number
  /** Serves the reads. */
  store: PostgresStore
  /** Answers the checks, on connections of its own so a busy pool never delays them. */
  checker: PostgresStore
  state: ReplicaStatus['state']
  lagMs: number | null
  /** When the last check that found it current began (monotonic ms). */
  currentSince: number | undefined
}

/** Deadlines of the checks: an answer later than this is no answer. */
function checkDeadlines (intervalMs: number) {
  const ms = Math.max(250, Math.min(1000, intervalMs * FRESH_CHECKS))
  return { acquireMs: ms, statementMs: ms, queryMs: ms, sqliteBusyMs: ms, heavyStatementMs: ms }
}

/** Gives `primary` read replicas: sets its `reads` and makes its `destroy` close them too. */
export function attachReplicas (primary: PostgresStore, primaryConfig: PostgresConfig, options: ReplicaOptions, listener: (event: ReplicaEvent) => void = () => {}): void {
  if (options.urls.length === 0) return
  const now = (): number => performance.now()
  const freshMs = options.checkIntervalMs * FRESH_CHECKS
  const deadlines = checkDeadlines(options.checkIntervalMs)
  const configOf = (url: string): PostgresConfig => ({ kind: 'postgres', url, ...(options.schema === undefined ? {} : { schema: options.schema }) })
  const replicas: Replica[] = options.urls.map((url, index) => ({
    id: index + 1,
    store: createStore(configOf(url), { ...options.storeOptions, heavyLaneOf: primary }) as PostgresStore,
    checker: createStore(configOf(url), { deadlines, heavyReads: { concurrency: 1 } }) as PostgresStore,
    state: 'unchecked',
    lagMs: null,
    currentSince: undefined,
  }))
  const primaryChecker = createStore(primaryConfig, { deadlines, heavyReads: { concurrency: 1 } })
  const lagClock = new LagClock(options.maxLagMs + 2 * freshMs)
  const visibility = new SyncVisibility(freshMs + VISIBILITY_MARGIN_MS)
  const counts: RoutingCounts = { replica: 0, primaryNoReplica: 0, primaryAfterReplicaError: 0 }
  let turn = 0

  const setState = (replica: Replica, state: ReplicaStatus['state'], lagMs: number | null, error?: unknown): void => {
    const changed = replica.state !== state
    replica.state = state
    replica.lagMs = lagMs
    if (state !== 'ok') replica.currentSince = undefined
    if (changed) listener({ id: replica.id, state, lagMs, ...(error === undefined ? {} : { error }) })
  }

  const checkReplica = async (replica: Replica, primaryAt: Position, began: number): Promise<void> => {
    let position: Position
    try {
      position = await replicaPosition(replica.checker)
    } catch (error) {
      setState(replica, 'down', null, error)
      return
    }
    if (!position.standby) {
      setState(replica, 'down', null, new Error('not a standby (pg_is_in_recovery() is false): not used as a replica'))
      return
    }
    const lagMs = lagClock.lagMs(position.lsn, now())
    if (lagMs > options.maxLagMs) setState(replica, 'lagging', lagMs)
    else if (!holdsEverything(position, primaryAt)) setState(replica, 'behind', lagMs)
    else {
      setState(replica, 'ok', lagMs)
      replica.currentSince = began
    }
  }

  let checking = false
  const check = async (): Promise<void> => {
    if (checking) return
    checking = true
    try {
      // The time is taken before the primary is asked: the replica must hold what the primary had then.
      const began = now()
      let primaryAt: Position
      try {
        primaryAt = await primaryPosition(primaryChecker)
      } catch {
        // Nothing to compare with: the replicas' last checks lapse on their own.
        return
      }
      visibility.observe(primaryAt.lastSyncId, now())
      lagClock.mark(began, primaryAt.lsn)
      await Promise.all(replicas.map(async (replica) => await checkReplica(replica, primaryAt, began)))
    } finally {
      checking = false
    }
  }
  // check() never rejects: every failure becomes a replica's state.
  const timer = setInterval(() => { check().catch(() => {}) }, options.checkIntervalMs)
  timer.unref()
  check().catch(() => {})

  const usable = (replica: Replica, at: number): boolean => replica.state === 'ok' && replica.currentSince !== undefined && at - replica.currentSince < freshMs
  const pick = (): Replica | undefined => {
    const at = now()
    for (let i = 0; i < replicas.length; i++) {
      const replica = replicas[(turn + i) % replicas.length] as Replica
      if (usable(replica, at)) {
        turn = (turn + i + 1) % replicas.length
        return replica
      }
    }
    return undefined
  }

  const destroyPrimary = primary.destroy
  let closed = false
  const close = async (): Promise<void> => {
    if (closed) return
    closed = true
    clearInterval(timer)
    await Promise.all([primaryChecker.destroy(), ...replicas.flatMap((replica) => [replica.store.destroy(), replica.checker.destroy()])])
  }
  primary.destroy = async () => {
    await close()
    await destroyPrimary()
  }
  const routing: ReadRouting = {
    run: async <T>(work: (store: Store) => Promise<T>): Promise<T> => {
      const replica = pick()
      if (replica === undefined) {
        counts.primaryNoReplica += 1
        return await work(primary)
      }
      try {
        const result = await work(replica.store)
        counts.replica += 1
        return result
      } catch (error) {
        // A refusal (403, 404, 503 …) is the answer; anything else may be the replica's failure.
        if (error instanceof AppError) throw error
        setState(replica, 'down', null, error)
        counts.primaryAfterReplicaError += 1
        return await work(primary)
      }
    },
    visibleThroughSyncId: () => visibility.visibleThrough(now()),
    replicas: () => {
      const at = now()
      return replicas.map((replica) => ({ id: replica.id, state: replica.state, lagMs: replica.lagMs, skipped: !usable(replica, at), pool: replica.store.poolStats() }))
    },
    counts: () => ({ ...counts }),
    close,
  }
  primary.reads = routing
}
