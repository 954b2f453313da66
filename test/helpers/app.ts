import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { loadConfig } from '../../src/config/load.js'
import type { ResolvedConfig } from '../../src/config/schema.js'
import { buildApp } from '../../src/http/app.js'
import { unfilteredChangesCursor } from '../../src/http/cursors/changes-cursor.js'
import type { Clock } from '../../src/services/access-cache.js'
import { createServices } from '../../src/services/index.js'
import type { ExportOptions } from '../../src/services/exports/index.js'
import type { WebhookOptions } from '../../src/services/webhooks/index.js'
import { createCounterStore } from '../../src/storage/counters/index.js'
import type { Store } from '../../src/storage/db.js'

export const TEST_JWT_SECRET = 'test-secret-test-secret-test-secret-0123456789'

/** Where export files go in tests that do not name a folder (one per test process, never the repository's data/). */
export const TEST_EXPORT_DIR = join(tmpdir(), `pa-test-exports-${process.pid}`)

/** The configuration tests start from: defaults of docs/configuration.md plus a fixed JWT secret and TEST_EXPORT_DIR. */
export function testConfig (env: Record<string, string> = {}): ResolvedConfig {
  return { ...loadConfig({ LOG_LEVEL: 'silent', JWT_SECRET: TEST_JWT_SECRET, EXPORT_DIR: TEST_EXPORT_DIR, EXPORT_NICE: '0', ...env }), jwtSecret: env.JWT_SECRET ?? TEST_JWT_SECRET }
}

/**
 * The production app on a test store, wired exactly as `serve` wires it, logging nothing; its
 * counter store (memory, or Redis when env has REDIS_URL) closes with it. Call `app.close()`.
 */
export async function buildTestApp (store: Store, env: Record<string, string> = {}, options: TestAppOptions = {}): Promise<FastifyInstance> {
  const app = await buildUnreadyTestApp(store, env, options)
  await app.ready()
  return app
}

export interface TestAppOptions {
  /** The clock of the access caches (see testClock). */
  clock?: Clock
  /** The wall clock: token lifetimes, "today", the age of a /posts walk (see wallClock). */
  now?: () => number
  /** Log with the production logger into these captured lines (see captureLogs). */
  logs?: CapturedLogs
  /** GET /changes holds back events of later syncs (ServiceDeps.visibleThroughSyncId). */
  visibleThroughSyncId?: () => number | undefined
  /** The webhooks' resolver, replica hook and time limits (src/services/webhooks/index.ts). */
  webhooks?: WebhookOptions
  /** The export worker's lease and poll (src/services/exports/index.ts). */
  exports?: ExportOptions
}

/** The same, not yet ready, so a test can add routes of its own first. */
export async function buildUnreadyTestApp (store: Store, env: Record<string, string> = {}, options: TestAppOptions = {}): Promise<FastifyInstance> {
  const { clock, now, logs, visibleThroughSyncId, webhooks, exports } = options
  const config = testConfig(logs === undefined ? env : { LOG_LEVEL: 'info', ...env })
  const counters = createCounterStore(config)
  const logging = logs === undefined ? { logger: false } : { logStream: logs.stream }
  const app = await buildApp(config, { services: createServices({ config, store, counters, clock, now, visibleThroughSyncId, webhooks, exports, changesCursor: unfilteredChangesCursor(config.jwtSecret) }), ...logging })
  app.addHook('onClose', async () => {
    // A test may have started the webhook worker; it stops before the store goes.
    await app.services.webhooks.worker.stop(1000)
    await app.services.exports.worker.stop(1000)
    await counters.close()
  })
  return app
}

/** A clock that stands still until a test moves it: what a test of "within N seconds" needs. */
export function testClock (): Clock & { advance: (ms: number) => void } {
  let now = 1_000_000
  return { now: () => now, advance: (ms) => { now += ms } }
}

/**
 * A wall clock that stands at `iso` until a test sets or moves it: "today" and token lifetimes
 * without waiting, and without a midnight between two lines of a test.
 */
export function wallClock (iso: string): { now: () => number, set: (iso: string) => void, advance: (ms: number) => void } {
  let now = Date.parse(iso)
  return { now: () => now, set: (next) => { now = Date.parse(next) }, advance: (ms) => { now += ms } }
}

/** The JSON lines the production logger writes, captured (pass to buildLoggedTestApp). */
export interface CapturedLogs {
  stream: { write: (line: string) => void }
  /** Every line written so far, as written. */
  lines: string[]
  /** The lines parsed. */
  records: () => Array<Record<string, unknown>>
}

export function captureLogs (): CapturedLogs {
  const lines: string[] = []
  return {
    stream: { write: (line: string) => { lines.push(line) } },
    lines,
    records: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>),
  }
}

/** buildTestApp with the production logger (LOG_LEVEL info unless env says otherwise), its lines captured. */
export async function buildLoggedTestApp (store: Store, env: Record<string, string>, logs: CapturedLogs): Promise<FastifyInstance> {
  return await buildTestApp(store, env, { logs })
}
