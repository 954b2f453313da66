import cluster from 'node:cluster'
import { existsSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { resolve } from 'node:path'
import type { Command } from 'commander'
import type { FastifyInstance } from 'fastify'
import { AggregatorRegistry, type Registry } from 'prom-client'
import { ConfigError, DEFAULT_DATABASE_URL, loadConfig, parseWorkers, resolveJwtSecret } from '../../config/load.js'
import type { ResolvedConfig } from '../../config/schema.js'
import { buildApp } from '../../http/app.js'
import { unfilteredChangesCursor } from '../../http/cursors/changes-cursor.js'
import { startMetricsServer, type MetricsServer } from '../../http/metrics/metrics-server.js'
import { prepareDemoDatabase, type DemoAccess } from '../../services/demo/first-start.js'
import { createServices, type Services } from '../../services/index.js'
import { createMetricsRegistry } from '../../services/metrics/index.js'
import { createCounterStore } from '../../storage/counters/index.js'
import { createStore, type Store } from '../../storage/db.js'
import { SERVING_DEADLINES } from '../../storage/deadlines.js'
import { migrateToLatest } from '../../storage/migrate.js'
import { requireAnswer, withoutPassword } from '../../storage/open-store.js'
import { attachReplicas } from '../../storage/replicas/replica-routing.js'
import { startCluster } from '../cluster/primary.js'
import { loopbackUrl, printDemoAccess } from '../demo-banner.js'
import { CommandError } from '../errors.js'
import { EXIT, say, type CliIo } from '../io.js'
import { humanLogStream } from '../log-format.js'

/**
 * The longest a shutdown takes (docs/reliability.md "Shutdown"): from SIGTERM/SIGINT to exit,
 * whatever the stores do. In-flight requests have until CLOSE_RESERVE_MS before the end, then
 * their connections are cut; the stores then have what is left to close, and at the end the
 * process exits anyway (code 1), so a hung database or Redis cannot hold it.
 */
export const SHUTDOWN_GRACE_MS = 10_000
const CLOSE_RESERVE_MS = 1_000
/** Attempts under way at a shutdown get this long to finish before they are cut (the worker then takes ≤ 2 s more). */
const WEBHOOK_STOP_GRACE_MS = 5_000

export interface RunningServer {
  app: FastifyInstance
  /** The address it listens on, e.g. http://127.0.0.1:8000. */
  url: string
  /** Resolves once the server has shut down (after SIGTERM/SIGINT or `close()`). */
  closed: Promise<void>
  close: () => Promise<void>
}

export function registerServeCommand (program: Command, io: CliIo): void {
  program.command('serve')
    .description('Migrate the database and serve the HTTP API (HOST, PORT; stops cleanly on SIGTERM/SIGINT)')
    .option('--workers <n>', 'worker processes on the one port: a number, or auto for one per core (default: WEB_CONCURRENCY, else 1)')
    .action(async (options: { workers?: string }) => {
      // A worker of `serve --workers N` runs this same command: it serves, its primary did the rest.
      if (cluster.isWorker) {
        await (await startServer(io, { worker: true })).closed
        // The channel to the primary is all that keeps a stopped worker alive: let it go, and exit.
        cluster.worker?.disconnect()
        return
      }
      const workers = options.workers === undefined ? undefined : parseWorkers(options.workers, '--workers')
      if (typeof workers === 'string') throw new CommandError('USAGE_ERROR', workers, EXIT.USAGE)
      const config = resolveJwtSecret(loadConfig(io.env))
      const count = workers ?? config.workers
      if (count > 1) await runWorkers(io, config, count, options.workers === undefined ? `WEB_CONCURRENCY=${io.env.WEB_CONCURRENCY ?? ''}` : `--workers ${options.workers}`)
      else await (await startServer(io)).closed
    })
}

/**
 * `serve` with several workers: the primary checks that they can share their state, migrates
 * (and seeds the demo) once, then forks them (src/cli/cluster/primary.ts) and, with METRICS_PORT,
 * serves one scrape of the whole group, aggregated from the workers (prom-client's AggregatorRegistry).
 */
async function runWorkers (io: CliIo, config: ResolvedConfig, workers: number, source: string): Promise<void> {
  if (config.redisUrl === undefined) {
    throw new ConfigError([`${source} needs REDIS_URL: the workers must share rate limits and login lockouts (docs/operations.md "Workers"); set REDIS_URL or run one worker`])
  }
  if (config.database.kind === 'sqlite' && config.database.file === ':memory:') {
    throw new ConfigError([`${source} needs a database the workers can share: an in-memory SQLite database lives in one process; use a file or PostgreSQL`])
  }
  refuseDefaultStoreInProduction(config)
  const demo = await setUp(createStore(config.database), config, io)
  const aggregator = config.metrics.port === undefined ? undefined : new AggregatorRegistry()
  const running = await startCluster(io, { config, workers, graceMs: SHUTDOWN_GRACE_MS })
  let metrics: MetricsServer | undefined
  if (aggregator !== undefined && config.metrics.port !== undefined) {
    metrics = await listenForMetrics(config, async () => {
      const { alive, replaced } = running.stats()
      const own = `# HELP pa_workers Worker processes alive\n# TYPE pa_workers gauge\npa_workers ${alive}\n# HELP pa_worker_restarts_total Workers replaced after dying\n# TYPE pa_worker_restarts_total counter\npa_worker_restarts_total ${replaced}\n`
      return { contentType: aggregator.contentType, body: (await aggregator.clusterMetrics()) + own }
    })
    running.log.info({ url: `${metrics.url}/metrics` }, 'metrics listening')
  }
  if (demo !== undefined) printDemoAccess(io, loopbackUrl(config.host, running.port), demo, { webhooksAllowPrivate: config.webhooks.allowPrivate })
  await running.closed
  await metrics?.close()
}

/**
 * `partner-analytics serve`: configuration → store → migrations → (demo data on the embedded
 * default database) → services → app → listen, then a graceful stop on SIGTERM/SIGINT: the server
 * stops accepting, in-flight requests finish, the connections close.
 */
export async function startServer (io: CliIo, options: { worker?: boolean } = {}): Promise<RunningServer> {
  const worker = options.worker === true
  const config = resolveJwtSecret(loadConfig(io.env))
  if (!worker) refuseDefaultStoreInProduction(config)
  let demo: DemoAccess | undefined
  // Requests are answered from a store whose every wait is bounded (src/storage/deadlines.ts);
  // migrations and demo data may run long, so they run first on a store of their own without
  // those deadlines (except for an in-memory SQLite database, which only one connection can see).
  // A worker's primary has done both before forking it.
  const inMemory = config.database.kind === 'sqlite' && config.database.file === ':memory:'
  if (!inMemory && !worker) demo = await setUp(createStore(config.database), config, io)
  const store = createStore(config.database, { deadlines: SERVING_DEADLINES })
  const counters = createCounterStore(config)
  const registry = config.metrics.port === undefined ? undefined : createMetricsRegistry()
  let app: FastifyInstance
  let services: Services
  let metrics: MetricsServer | undefined
  try {
    if (inMemory) demo = await setUp(store, config, io, { keepOpen: true })
    // A person at a terminal reads pino-pretty's lines; anything else (a pipe, a collector) gets JSON.
    const logStream = io.stdout.isTTY === true ? humanLogStream(io.stdout as NodeJS.WritableStream) : undefined
    services = createServices({ config, store, counters, changesCursor: unfilteredChangesCursor(config.jwtSecret), ...(registry === undefined ? {} : { metrics: registry }) })
    app = await buildApp(config, { services, logStream })
    if (store.dialect === 'postgres' && config.database.kind === 'postgres') {
      attachReplicas(store, config.database, { ...config.replicas, schema: config.database.schema, storeOptions: { deadlines: SERVING_DEADLINES } }, (event) => {
        const fields = { replica: event.id, state: event.state, lag_ms: event.lagMs, ...(event.error === undefined ? {} : { err: event.error }) }
        if (event.state === 'ok') app.log.info(fields, 'read replica in use')
        else app.log.warn(fields, 'read replica skipped: reads it would serve go to the primary')
      })
    }
    if (registry !== undefined) metrics = await serveMetrics(app, registry, config, worker)
  } catch (error) {
    await counters.close()
    await store.destroy()
    throw error
  }
  // The webhook worker starts stopping as the close begins, beside the draining requests, and has
  // stopped (within its own bound) before the store closes: its cut attempts give their leases back.
  let workerStopped: Promise<void> = Promise.resolve()
  // Running exports are given back queued (another instance, or this one restarted, runs them).
  app.addHook('preClose', async () => {
    workerStopped = Promise.all([app.services.webhooks.worker.stop(WEBHOOK_STOP_GRACE_MS), app.services.exports.worker.stop(WEBHOOK_STOP_GRACE_MS)]).then(() => {})
  })
  app.addHook('onClose', async () => {
    // The background work first: it uses the store closed below.
    await services.changeRetention.stop()
    await workerStopped
    await metrics?.close()
    await counters.close()
    await store.destroy()
  })
  // A worker whose primary is gone (killed) stops too, rather than serve on unsupervised.
  if (worker) process.once('disconnect', () => { process.kill(process.pid, 'SIGTERM') })

  const url = await listenOrExplain(app, config.host, config.port)
  startBackgroundWork(app, services)
  if (demo !== undefined) printDemoAccess(io, loopbackUrl(config.host, (app.server.address() as AddressInfo).port), demo, { webhooksAllowPrivate: config.webhooks.allowPrivate })

  let resolveClosed: () => void = () => {}
  const closed = new Promise<void>((resolve) => { resolveClosed = resolve })
  let closing: Promise<void> | undefined
  const close = async (): Promise<void> => {
    closing ??= app.close().then(() => {
      process.off('SIGTERM', onSignal)
      process.off('SIGINT', onSignal)
      resolveClosed()
    })
    await closing
  }
  let signalled = false
  const onSignal = (signal: NodeJS.Signals): void => {
    if (signalled) return
    signalled = true
    app.log.info({ signal }, 'shutting down: finishing in-flight requests')
    // A keep-alive connection whose request finishes during the shutdown is closed then, not at the end of the grace period.
    setInterval(() => app.server.closeIdleConnections(), 200).unref()
    // Requests still running near the end of the grace period are cut, so a stuck one cannot block the stop.
    setTimeout(() => app.server.closeAllConnections(), SHUTDOWN_GRACE_MS - CLOSE_RESERVE_MS).unref()
    // A store that does not answer keeps its sockets (and so the process) open: the bound holds anyway.
    setTimeout(() => {
      app.log.error({ signal, grace_ms: SHUTDOWN_GRACE_MS }, 'shutdown grace period over: exiting with connections still open')
      process.exit(1)
    }, SHUTDOWN_GRACE_MS).unref()
    close().catch((error: unknown) => app.log.error({ err: error }, 'shutdown failed'))
  }
  process.on('SIGTERM', onSignal)
  process.on('SIGINT', onSignal)
  return { app, url, closed, close }
}

/**
 * What runs beside the requests, once per instance, started once the server listens (never from a
 * route): the change feed's purge and the webhook deliveries; stopped by the app's close above.
 */
function startBackgroundWork (app: FastifyInstance, services: Services): void {
  services.webhooks.worker.start(app.log.child({ component: 'webhooks' }))
  services.exports.worker.start(app.log.child({ component: 'exports' }))
  services.changeRetention.start({
    onPurged: (run) => app.log.info({ deleted: run.deleted, batches: run.batches }, 'change feed: expired events purged'),
    onError: (error) => app.log.error({ err: error }, 'change feed: purge failed; trying again at the next interval'),
  })
}

/**
 * One process: its own metrics listener. A worker: its registry answers the primary's requests
 * instead (the primary serves the whole group's scrape).
 */
async function serveMetrics (app: FastifyInstance, registry: Registry, config: ResolvedConfig, worker: boolean): Promise<MetricsServer | undefined> {
  if (worker) {
    AggregatorRegistry.setRegistries([registry])
    // Constructing one installs the worker's answer to the primary's requests.
    // eslint-disable-next-line no-new -- see above
    new AggregatorRegistry()
    return undefined
  }
  const server = await listenForMetrics(config, async () => ({ contentType: registry.contentType, body: await registry.metrics() }))
  app.log.info({ url: `${server.url}/metrics` }, 'metrics listening')
  return server
}

/** The metrics listener, or one line naming METRICS_HOST and METRICS_PORT. */
async function listenForMetrics (config: ResolvedConfig, render: Parameters<typeof startMetricsServer>[2]): Promise<MetricsServer> {
  const { host, port = 0 } = config.metrics
  try {
    return await startMetricsServer(host, port, render)
  } catch (error) {
    throw new CommandError('LISTEN_FAILED', `cannot serve metrics on ${host}:${port} (METRICS_HOST=${host}, METRICS_PORT=${port}): ${(error as Error).message}`, EXIT.FAILURE)
  }
}

/**
 * Under NODE_ENV=production, serve never makes the default store (docs/configuration.md): the
 * default, ./data/partner-analytics.sqlite, is relative to wherever a service manager starts the
 * process (`/` → /data/…), and a new one would be a database with a demo partner and its keys.
 * One that already exists there (an operator's `migrate` and `import` in that folder) is served,
 * its absolute path said at start.
 */
function refuseDefaultStoreInProduction (config: ResolvedConfig): void {
  if (!config.isDefaultDatabase || config.nodeEnv !== 'production') return
  const file = config.database.kind === 'sqlite' ? resolve(config.database.file) : DEFAULT_DATABASE_URL
  if (config.database.kind === 'sqlite' && existsSync(file)) return
  throw new ConfigError([`DATABASE_URL must be set when NODE_ENV=production: serve does not fall back to ${DEFAULT_DATABASE_URL} (here ${file}, a new database with demo data); ` +
    'set DATABASE_URL to the store to serve, e.g. sqlite:/var/lib/partner-analytics/partner-analytics.sqlite or postgres://user@host:5432/db'])
}

/** The store serve answers from, as its one line at start says it: an absolute file, or the server's URL without its password. */
function storeLine (config: ResolvedConfig): string {
  const { database } = config
  if (database.kind === 'postgres') return `Store: PostgreSQL ${withoutPassword(database.url)}`
  if (database.file === ':memory:') return 'Store: SQLite in memory (nothing is kept after the process ends)'
  if (!config.isDefaultDatabase) return `Store: SQLite ${resolve(database.file)}`
  // Under production only an existing default store is served (refuseDefaultStoreInProduction): never made the demo one.
  return `Store: SQLite ${resolve(database.file)} (DATABASE_URL is not set: ${config.nodeEnv === 'production' ? 'the default store of the working directory' : 'the embedded demo database'})`
}

/** Migrations, then the demo data on the embedded default database; closes the store unless told. */
async function setUp (store: Store, config: ResolvedConfig, io: CliIo, options: { keepOpen?: boolean } = {}): Promise<DemoAccess | undefined> {
  try {
    await requireAnswer(store, config.database)
    // Said once the store answers (an unreachable one is named by the error instead), before anything is written to it.
    say(io, storeLine(config))
    await migrateToLatest(store)
    return config.isDefaultDatabase ? await prepareDemoDatabase(store, config, (line) => say(io, line)) : undefined
  } finally {
    if (options.keepOpen !== true) await store.destroy()
  }
}

/**
 * Listens, or closes everything and fails with one line naming HOST and PORT (nothing about the
 * demo is printed before the server listens, so a busy port prints no curl line).
 */
async function listenOrExplain (app: FastifyInstance, host: string, port: number): Promise<string> {
  try {
    return await app.listen({ host, port })
  } catch (error) {
    await app.close()
    const code = (error as NodeJS.ErrnoException).code
    const reason = code === 'EADDRINUSE'
      ? 'the port is already in use (another server?); stop it or choose another PORT'
      : code === 'EACCES'
        ? 'permission denied (ports below 1024 need privileges); choose another PORT'
        : code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND'
          ? 'this machine has no such address; choose another HOST'
          : (error as Error).message
    throw new CommandError('LISTEN_FAILED', `cannot listen on ${host}:${port} (HOST=${host}, PORT=${port}): ${reason}`, EXIT.FAILURE)
  }
}
