import type { FastifyInstance } from 'fastify'
import { loadConfig, resolveJwtSecret } from '../config/load.js'
import type { CliIo } from '../cli/io.js'
import { prepareDemoDatabase } from '../demo/first-start.js'
import { createStore } from '../storage/db.js'
import { migrateToLatest } from '../storage/migrate.js'
import { buildApp } from './app.js'

/** How long in-flight requests may take to finish after SIGTERM/SIGINT. */
const SHUTDOWN_GRACE_MS = 10_000

export interface RunningServer {
  app: FastifyInstance
  /** The address it listens on, e.g. http://127.0.0.1:8000. */
  url: string
  /** Resolves once the server has shut down (after SIGTERM/SIGINT or `close()`). */
  closed: Promise<void>
  close: () => Promise<void>
}

/**
 * `partner-analytics serve`: configuration → store → migrations → (demo data on the embedded
 * default database) → app → listen, then a graceful stop on SIGTERM/SIGINT: the server stops
 * accepting, in-flight requests finish, the store's connections close.
 */
export async function startServer (io: CliIo): Promise<RunningServer> {
  const config = resolveJwtSecret(loadConfig(io.env))
  const store = createStore(config.database)
  let app: FastifyInstance
  try {
    await migrateToLatest(store)
    if (config.isDefaultDatabase) await prepareDemoDatabase(store, config, io)
    app = await buildApp(config, { store })
  } catch (error) {
    await store.destroy()
    throw error
  }
  app.addHook('onClose', async () => { await store.destroy() })

  const url = await app.listen({ host: config.host, port: config.port })

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
  const onSignal = (signal: NodeJS.Signals): void => {
    app.log.info({ signal }, 'shutting down: finishing in-flight requests')
    // Requests still running after the grace period are cut, so a stuck one cannot block the stop.
    setTimeout(() => app.server.closeAllConnections(), SHUTDOWN_GRACE_MS).unref()
    close().catch((error: unknown) => app.log.error({ err: error }, 'shutdown failed'))
  }
  process.on('SIGTERM', onSignal)
  process.on('SIGINT', onSignal)
  return { app, url, closed, close }
}
