import cluster, { type Worker } from 'node:cluster'
import type { AddressInfo } from 'node:net'
import { pino, type Logger } from 'pino'
import type { ResolvedConfig } from '../../config/schema.js'
import { CommandError } from '../errors.js'
import { EXIT, type CliIo } from '../io.js'
import { humanLogStream } from '../log-format.js'
import { resetHandoffsOnExit } from './handoffs.js'
import { RestartPolicy } from './restart-policy.js'

/**
 * The primary of `serve --workers N` (docs/operations.md "Workers"): it forks N workers, each the
 * whole app on the one port (node:cluster hands them the connections), replaces a worker that
 * dies (bounded by RestartPolicy), and on SIGTERM/SIGINT stops them all within `graceMs`. It
 * answers no request and opens no store: migrations and the demo data ran before it forked.
 */

export interface ClusterOptions {
  config: ResolvedConfig
  workers: number
  /** From the first SIGTERM/SIGINT to exit, whatever the workers do (serve.ts SHUTDOWN_GRACE_MS). */
  graceMs: number
}

export interface RunningCluster {
  /** The port every worker listens on. */
  port: number
  log: Logger
  /** Workers alive now, and replacements started since the start (the primary's own metrics). */
  stats: () => { alive: number, replaced: number }
  /** Resolves once every worker has exited after a stop. */
  closed: Promise<void>
}

/** Left between killing the workers that did not stop and the end of the grace period. */
const KILL_RESERVE_MS = 300

export async function startCluster (io: CliIo, options: ClusterOptions): Promise<RunningCluster> {
  const { config, workers, graceMs } = options
  const log = pino({ level: config.logLevel, base: { pid: process.pid, role: 'primary' } },
    io.stdout.isTTY === true ? humanLogStream(io.stdout as NodeJS.WritableStream) : pino.destination({ sync: true }))
  const policy = new RestartPolicy()
  let stopping = false
  let replaced = 0
  const alive = new Set<Worker>()

  const fork = (): Worker => {
    // The environment the command was given (tests pass their own), not only this process's.
    const worker = cluster.fork(io.env)
    alive.add(worker)
    // A connection being handed to it when it dies is reset, not left open in this process (handoffs.ts).
    resetHandoffsOnExit(worker, (count) => log.warn({ worker_pid: worker.process.pid, connections: count }, 'connections being handed to the dead worker were reset'))
    return worker
  }

  // Start-up: every worker must listen; one that exits first fails the start (a port in use, a store that refuses).
  let port = 0
  await new Promise<void>((resolve, reject) => {
    let listening = 0
    const onListening = (_worker: Worker, address: AddressInfo): void => {
      port = address.port
      if (++listening === workers) { cluster.off('exit', onEarlyExit); cluster.off('listening', onListening); resolve() }
    }
    const onEarlyExit = (worker: Worker, code: number | null, signal: string | null): void => {
      cluster.off('exit', onEarlyExit)
      cluster.off('listening', onListening)
      alive.delete(worker)
      for (const other of alive) other.process.kill('SIGTERM')
      reject(new CommandError('WORKER_FAILED', `a worker stopped before it listened (${signal ?? `exit code ${String(code)}`}); its error is above`, EXIT.FAILURE))
    }
    cluster.on('listening', onListening)
    cluster.on('exit', onEarlyExit)
    for (let i = 0; i < workers; i++) fork()
  })
  log.info({ workers, port }, `${workers} workers listening`)

  cluster.on('exit', (worker, code, signal) => {
    alive.delete(worker)
    if (stopping) return
    const delayMs = policy.nextDelay(Date.now())
    log.error({ worker_pid: worker.process.pid, code, signal, replace_in_ms: delayMs }, delayMs > 1000 ? 'worker died; too many restarts in a minute, replacing it later' : 'worker died; replacing it')
    setTimeout(() => {
      if (stopping) return
      replaced += 1
      const replacement = fork()
      replacement.once('listening', () => log.info({ worker_pid: replacement.process.pid }, 'replacement worker listening'))
    }, delayMs).unref()
  })

  let resolveClosed: () => void = () => {}
  const closed = new Promise<void>((resolve) => { resolveClosed = resolve })
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stopping) return
    stopping = true
    log.info({ signal, workers: alive.size }, 'shutting down: stopping the workers')
    for (const worker of alive) worker.process.kill('SIGTERM')
    // Each worker bounds its own shutdown; one that hangs anyway is killed before the bound.
    setTimeout(() => { for (const worker of alive) worker.process.kill('SIGKILL') }, graceMs - KILL_RESERVE_MS).unref()
    setTimeout(() => {
      log.error({ signal, grace_ms: graceMs }, 'shutdown grace period over: exiting with workers still running')
      process.exit(1)
    }, graceMs).unref()
    const check = (): void => {
      if (alive.size > 0) return
      process.off('SIGTERM', onSignal)
      process.off('SIGINT', onSignal)
      resolveClosed()
    }
    cluster.on('exit', check)
    check()
  }
  process.on('SIGTERM', onSignal)
  process.on('SIGINT', onSignal)
  return { port, log, closed, stats: () => ({ alive: alive.size, replaced }) }
}
