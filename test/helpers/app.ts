import type { FastifyInstance } from 'fastify'
import { loadConfig } from '../../src/config/load.js'
import type { ResolvedConfig } from '../../src/config/schema.js'
import { buildApp } from '../../src/http/app.js'
import { createServices } from '../../src/services/index.js'
import { createCounterStore } from '../../src/storage/counters/index.js'
import type { Store } from '../../src/storage/db.js'

export const TEST_JWT_SECRET = 'test-secret-test-secret-test-secret-0123456789'

/** The configuration tests start from: defaults of DECISIONS.md §9 plus a fixed JWT secret. */
export function testConfig (env: Record<string, string> = {}): ResolvedConfig {
  return { ...loadConfig({ LOG_LEVEL: 'silent', JWT_SECRET: TEST_JWT_SECRET, ...env }), jwtSecret: env.JWT_SECRET ?? TEST_JWT_SECRET }
}

/**
 * The production app on a test store, wired exactly as `serve` wires it, logging nothing; its
 * counter store (memory, or Redis when env has REDIS_URL) closes with it. Call `app.close()`.
 */
export async function buildTestApp (store: Store, env: Record<string, string> = {}): Promise<FastifyInstance> {
  const app = await buildUnreadyTestApp(store, env)
  await app.ready()
  return app
}

/** The same, not yet ready, so a test can add routes of its own first. */
export async function buildUnreadyTestApp (store: Store, env: Record<string, string> = {}, logs?: CapturedLogs): Promise<FastifyInstance> {
  const config = testConfig(logs === undefined ? env : { LOG_LEVEL: 'info', ...env })
  const counters = createCounterStore(config)
  const logging = logs === undefined ? { logger: false } : { logStream: logs.stream }
  const app = await buildApp(config, { services: createServices({ config, store, counters }), ...logging })
  app.addHook('onClose', async () => { await counters.close() })
  return app
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
  const app = await buildUnreadyTestApp(store, env, logs)
  await app.ready()
  return app
}
