import Fastify, { LogController, type FastifyInstance, type FastifyServerOptions } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { Config } from '../config/schema.js'
import { createTokenService, type TokenService } from '../auth/tokens.js'
import type { CounterStore } from '../ratelimit/counter-store.js'
import { createCounterStore } from '../ratelimit/stores.js'
import { createStore, type Store } from '../storage/db.js'
import { registerErrorHandling } from './error-handler.js'
import { openApiPlugin } from './plugins/openapi.js'
import { parseQueryString } from './query-string.js'
import { requestIdFor } from './request-id.js'
import { registerRoutes } from './routes/index.js'

/** A configuration whose JWT secret has been resolved (see `resolveJwtSecret`). */
export type AppConfig = Config & { jwtSecret: string }

export interface AppOptions {
  /** An open store to use; when absent one is opened from `config.database` and closed with the app. */
  store?: Store
  /** Fastify logger options; defaults to JSON lines at `config.logLevel`. */
  logger?: FastifyServerOptions['logger']
}

declare module 'fastify' {
  interface FastifyInstance {
    config: AppConfig
    store: Store
    /** Rate-limit and lockout state: in process, or Redis when REDIS_URL is set (owned by the app). */
    counters: CounterStore
    tokens: TokenService
  }
}

/**
 * Builds the whole HTTP application without listening: `serve` and the tests share it, so tests
 * exercise exactly the production wiring (Ajv options, hooks, error mapping).
 */
export async function buildApp (config: AppConfig, options: AppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger ?? {
      level: config.logLevel,
      // Credentials never reach the logs, whatever a future log line includes.
      redact: ['req.headers.authorization', 'req.body.api_secret_key', 'headers.authorization'],
    },
    genReqId: requestIdFor,
    logController: new LogController({ requestIdLogLabel: 'request_id' }),
    bodyLimit: 64 * 1024,
    connectionTimeout: 30_000,
    requestTimeout: 30_000,
    // Longer than common load balancers' idle timeout, so they close first (no reset races).
    keepAliveTimeout: 72_000,
    // Which address is the client's: per-IP login limits depend on it behind a load balancer.
    trustProxy: typeof config.trustProxy === 'number' ? trustHops(config.trustProxy) : config.trustProxy,
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 200, querystringParser: parseQueryString },
    ajv: {
      customOptions: { allErrors: true, coerceTypes: true, useDefaults: true, removeAdditional: false },
    },
  }).withTypeProvider<TypeBoxTypeProvider>()

  const store = options.store ?? createStore(config.database)
  app.decorate('config', config)
  app.decorate<Store>('store', store)
  if (options.store === undefined) app.addHook('onClose', async () => { await store.destroy() })
  const counters = createCounterStore(config)
  app.decorate<CounterStore>('counters', counters)
  app.addHook('onClose', async () => { await counters.close() })
  app.decorate<TokenService>('tokens', createTokenService({ secret: config.jwtSecret, algorithm: config.jwtAlgorithm, ttlSeconds: config.tokenTtlSeconds }))

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id)
  })

  registerErrorHandling(app)
  // Before the routes: the OpenAPI document learns each route as it is added (onRoute).
  await app.register(openApiPlugin)
  await app.register(registerRoutes)
  return app
}

/** TRUST_PROXY=<n>: trust the n nearest hops (what Fastify does with a number, which its types omit). */
function trustHops (hops: number): (address: string, hop: number) => boolean {
  return (_address, hop) => hop < hops
}
