import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { chownSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { childrenOf, clusterOwner, exitOf, findPostgresBinDir, freePort, waitFor } from './processes.js'

/**
 * A PostgreSQL primary and a streaming replica of it, both the test's own (docs/operations.md
 * "Read replicas"): initdb with wal_level=replica in a temporary folder, `pg_basebackup -R` of it
 * into another, a second postmaster on another port. Run as the `postgres` user when the tests
 * run as root; everything torn down by `close` (an immediate shutdown, which also frees each
 * postmaster's shared memory; SIGKILL only if that does not end it), and, should the test process
 * exit without it, by an exit hook that asks both postmasters to shut down. Every wait is bounded.
 */

export interface StreamingPair {
  primaryUrl: string
  replicaUrl: string
  /** SQL on the replica (a fresh connection each time). */
  onReplica: <Row extends pg.QueryResultRow = Record<string, unknown>>(text: string) => Promise<Row[]>
  onPrimary: <Row extends pg.QueryResultRow = Record<string, unknown>>(text: string) => Promise<Row[]>
  /** Stops the replica's postmaster at once (SIGKILL of every process): connections drop, new ones are refused. */
  stopReplica: () => Promise<void>
  /** Starts it again on the same port and data. */
  startReplica: () => Promise<void>
  close: () => Promise<void>
}

async function query<Row extends pg.QueryResultRow> (url: string, text: string): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000, query_timeout: 10_000 })
  client.on('error', () => {})
  await client.connect()
  try {
    return (await client.query<Row>(text)).rows
  } finally {
    await client.end().catch(() => {})
  }
}

async function answers (url: string): Promise<boolean> {
  await query(url, 'select 1')
  return true
}

function running (child: ChildProcess | undefined): child is ChildProcess & { pid: number } {
  return child?.pid !== undefined && child.exitCode === null && child.signalCode === null
}

function killTree (child: ChildProcess | undefined): void {
  if (!running(child)) return
  for (const pid of [child.pid, ...childrenOf(child.pid)]) {
    try { process.kill(pid, 'SIGKILL') } catch { /* gone */ }
  }
}

/** PostgreSQL's immediate shutdown (the postmaster ends every backend and frees its shared memory); SIGKILL of every process if it has not ended within 10 s. */
async function shutDown (child: ChildProcess | undefined): Promise<void> {
  if (!running(child)) return
  try { process.kill(child.pid, 'SIGQUIT') } catch { /* gone */ }
  if (await exitOf(child, 10_000) !== undefined) return
  killTree(child)
  await exitOf(child, 5000)
}

/**
 * A postmaster that was SIGKILLed (stopReplica, not started again: a test that failed in between)
 * leaves its System V shared memory segment behind, named on line 7 of its postmaster.pid ("key
 * shmid"); a clean shutdown removes both. Removed here, once no process of the cluster is left.
 */
function removeLeftSharedMemory (dataDir: string): void {
  try {
    const shmid = readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[6]?.trim().split(/\s+/)[1]
    if (shmid !== undefined && /^\d+$/.test(shmid)) execFileSync('ipcrm', ['-m', shmid], { stdio: 'ignore', timeout: 10_000 })
  } catch {
    // no pid file (shut down cleanly), or the segment is gone already
  }
}

export async function startStreamingPair (): Promise<StreamingPair> {
  const bin = findPostgresBinDir()
  if (bin === undefined) throw new Error('no PostgreSQL binaries')
  const owner = clusterOwner()
  const dir = mkdtempSync(join(tmpdir(), 'pa-repl-'))
  if (owner !== undefined) chownSync(dir, owner.uid, owner.gid)
  const primaryData = join(dir, 'primary')
  const replicaData = join(dir, 'replica')
  const [primaryPort, replicaPort] = [await freePort(), await freePort()]
  const primaryUrl = `postgres://postgres@127.0.0.1:${primaryPort}/postgres`
  const replicaUrl = `postgres://postgres@127.0.0.1:${replicaPort}/postgres`
  // pg_stat_statements counts each statement as it ends, on the primary and on the standby alike.
  const settings = ['-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'max_connections=60', '-c', 'shared_buffers=16MB', '-c', 'shared_preload_libraries=pg_stat_statements', '-k', dir]
  let primary: ChildProcess | undefined
  let replica: ChildProcess | undefined
  // A test process that ends without `close` (a failure in a hook, an uncaught error) leaves no
  // cluster running: the postmasters shut down on their own once asked (no waiting in an exit hook).
  const onExit = (): void => {
    for (const child of [replica, primary]) {
      if (running(child)) try { process.kill(child.pid, 'SIGQUIT') } catch { /* gone */ }
    }
  }
  process.once('exit', onExit)
  const close = async (): Promise<void> => {
    process.removeListener('exit', onExit)
    await Promise.all([shutDown(replica), shutDown(primary)])
    removeLeftSharedMemory(replicaData)
    removeLeftSharedMemory(primaryData)
    rmSync(dir, { recursive: true, force: true })
  }
  try {
    execFileSync(join(bin, 'initdb'), ['-D', primaryData, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync'], { stdio: 'ignore', ...owner, timeout: 60_000 })
    primary = spawn(join(bin, 'postgres'), ['-D', primaryData, '-p', String(primaryPort), '-c', 'wal_level=replica', '-c', 'max_wal_senders=5', ...settings], { stdio: 'ignore', ...owner })
    await waitFor('the primary accepts connections', async () => await answers(primaryUrl), 30_000)
    await query(primaryUrl, 'create extension pg_stat_statements')
    // -R writes the standby's primary_conninfo and standby.signal; -X stream copies the WAL written meanwhile.
    execFileSync(join(bin, 'pg_basebackup'), ['-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'postgres', '-D', replicaData, '-R', '-X', 'stream', '--no-sync'], { stdio: 'ignore', ...owner, timeout: 60_000 })
  } catch (error) {
    await close()
    throw error
  }
  const startReplica = async (): Promise<void> => {
    replica = spawn(join(bin, 'postgres'), ['-D', replicaData, '-p', String(replicaPort), '-c', 'hot_standby=on', ...settings], { stdio: 'ignore', ...owner })
    await waitFor('the replica accepts connections', async () => await answers(replicaUrl), 30_000)
  }
  try {
    await startReplica()
    await waitFor('the replica streams from the primary', async () => (await query<{ n: number }>(primaryUrl, "select count(*)::int as n from pg_stat_replication where state = 'streaming'"))[0]?.n === 1, 30_000)
  } catch (error) {
    await close()
    throw error
  }
  return {
    primaryUrl,
    replicaUrl,
    onReplica: async (text) => await query(replicaUrl, text),
    onPrimary: async (text) => await query(primaryUrl, text),
    stopReplica: async () => {
      const stopping = replica
      killTree(stopping)
      if (stopping !== undefined) await exitOf(stopping, 10_000)
    },
    startReplica,
    close,
  }
}
