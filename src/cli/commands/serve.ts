import type { AddressInfo } from 'node:net'
import type { Command } from 'commander'
import type { FastifyInstance } from 'fastify'
import { loadConfig, resolveJwtSecret } from '../../config/load.js'
import type { ResolvedConfig } from '../../config/schema.js'
import { buildApp } from '../../http/app.js'
import { prepareDemoDatabase, type DemoAccess } from '../../services/demo/first-start.js'
import { createServices } from '../../services/index.js'
import { createCounterStore } from '../../storage/counters/index.js'
import { createStore, type Store } from '../../storage/db.js'
import { SERVING_DEADLINES } from '../../storage/deadlines.js'
import { migrateToLatest } from '../../storage/migrate.js'
import { requireAnswer } from '../../storage/open-store.js'
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
    .action(async () => {
      const server = await startServer(io)
      await server.closed
    })
}

/**
 * `partner-analytics serve`: configuration → store → migrations → (demo data on the embedded
 * default database) → services → app → listen, then a graceful stop on SIGTERM/SIGINT: the server
 * stops accepting, in-flight requests finish, the connections close.
 */
export async function startServer (io: CliIo): Promise<RunningServer> {
  const config = resolveJwtSecret(loadConfig(io.env))
  let demo: DemoAccess | undefined
  // Requests are answered from a store whose every wait is bounded (src/storage/deadlines.ts);
  // migrations and demo data may run long, so they run first on a store of their own without
  // those deadlines (except for an in-memory SQLite database, which only one connection can see).
  const inMemory = config.database.kind === 'sqlite' && config.database.file === ':memory:'
  if (!inMemory) demo = await setUp(createStore(config.database), config, io)
  const store = createStore(config.database, { deadlines: SERVING_DEADLINES })
  const counters = createCounterStore(config)
  let app: FastifyInstance
  try {
    if (inMemory) demo = await setUp(store, config, io, { keepOpen: true })
    // A person at a terminal reads pino-pretty's lines; anything else (a pipe, a collector) gets JSON.
    const logStream = io.stdout.isTTY === true ? humanLogStream(io.stdout as NodeJS.WritableStream) : undefined
    app = await buildApp(config, { services: createServices({ config, store, counters }), logStream })
  } catch (error) {
    await counters.close()
    await store.destroy()
    throw error
  }
  app.addHook('onClose', async () => {
    await counters.close()
    await store.destroy()
  })

  const url = await listenOrExplain(app, config.host, config.port)
  if (demo !== undefined) printDemoAccess(io, loopbackUrl(config.host, (app.server.address() as AddressInfo).port), demo)

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

/** Migrations, then the demo data on the embedded default database; closes the store unless told. */
async function setUp (store: Store, config: ResolvedConfig, io: CliIo, options: { keepOpen?: boolean } = {}): Promise<DemoAccess | undefined> {
  try {
    await requireAnswer(store, config.database)
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
