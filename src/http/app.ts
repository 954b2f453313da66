import type { IncomingMessage } from 'node:http'
import Fastify, { LogController, type FastifyInstance, type FastifySchema, type FastifyServerOptions } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { ResolvedConfig } from '../config/schema.js'
import { isCalendarDate } from '../domain/dates.js'
import type { Services } from '../services/index.js'
import { answerFrameworkError, registerErrorHandling } from './error-handler.js'
import { registerRequestHooks } from './hooks.js'
import { deferredChild } from './deferred-logger.js'
import type { RouteAccess } from './route-access.js'
import { answersJson } from './media-type.js'
import { compressionPlugin } from './plugins/compression.js'
import { conditionalGetPlugin } from './plugins/conditional-get.js'
import { openApiPlugin } from './plugins/openapi.js'
import { parseQueryString } from './query/query-string.js'
import { REDACTED, REDACTED_PATHS, serializeRequest } from './logging.js'
import { registerRequestMetrics } from './metrics/request-metrics.js'
import { requestIdFor } from './request-id.js'
import { traceContextOf } from './trace-context.js'
import { answerClientError } from './security-headers.js'
import { buildResponseSerializer } from './serializer.js'
import { registerRoutes } from './routes/index.js'

export interface AppOptions {
  /** The wired services (src/services/index.ts); the caller owns and closes them. */
  services: Services
  /** Fastify logger options, replacing the production ones (tests pass `false`). */
  logger?: FastifyServerOptions['logger']
  /** Where the production logger writes its JSON lines (default stdout; `serve` gives a human format on a terminal); tests capture them here. */
  logStream?: { write: (line: string) => void }
}

/** One method of one served path, with the access its route declares (src/http/route-access.ts). */
export interface RouteEntry {
  method: string
  url: string
  access: RouteAccess | undefined
  /** Whether it answers JSON (src/http/media-type.ts). */
  json: boolean
  /** Its schema as declared: the query it takes, the statuses it answers (`response`). */
  schema: FastifySchema | undefined
}

declare module 'fastify' {
  interface FastifyInstance {
    config: ResolvedConfig
    services: Services
    /** Every route the app serves, as registered (read by tests and the 405 answer). */
    routeTable: readonly RouteEntry[]
  }
}

/**
 * Builds the whole HTTP application without listening: `serve` and the tests share it, so tests
 * exercise exactly the production wiring (Ajv options, hooks, error mapping). Every Fastify
 * option lives here.
 */
export async function buildApp (config: ResolvedConfig, options: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger ?? {
      level: config.logLevel,
      // Credentials never reach the logs, wherever a client put them (src/http/logging.ts).
      redact: { paths: REDACTED_PATHS, censor: REDACTED },
      serializers: { req: serializeRequest as never },
      ...(options.logStream === undefined ? {} : { stream: options.logStream }),
    },
    genReqId: requestIdFor,
    // The two answers Fastify writes before any hook runs still carry the contract's body and the
    // security headers (src/http/security-headers.ts).
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError,
    logController: new LogController({ requestIdLogLabel: 'request_id' }),
    // Every log line of a request carries its W3C trace id (src/http/trace-context.ts); the child
    // is made when the request first logs (src/http/deferred-logger.ts), unless its route sets a level.
    childLoggerFactory: (logger, bindings, options, rawRequest) => {
      const make = () => logger.child({ ...bindings, trace_id: traceContextOf(rawRequest as IncomingMessage).traceId }, options)
      return options.level === undefined ? deferredChild(logger, make) : make()
    },
    bodyLimit: 64 * 1024,
    connectionTimeout: 30_000,
    requestTimeout: 30_000,
    // Longer than common load balancers' idle timeout, so they close first (no reset races).
    keepAliveTimeout: 72_000,
    // Which address is the client's: per-IP login limits depend on it behind a load balancer.
    trustProxy: typeof config.trustProxy === 'number' ? trustHops(config.trustProxy) : config.trustProxy,
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 200, querystringParser: parseQueryString },
    // Responses keep the contract's field order (src/http/serializer.ts).
    schemaController: { compilersFactory: { buildSerializer: buildResponseSerializer as never } },
    ajv: {
      customOptions: {
        allErrors: true,
        // Query values are converted strictly before validation (src/http/query/coerce.ts) and
        // bodies never: a number must not pass as a string key.
        coerceTypes: false,
        useDefaults: true,
        removeAdditional: false,
        // Errors carry the failing value and schema, from which the 422 messages are written.
        verbose: true,
      },
      // After ajv-formats: a date is a calendar date of 0001-01-01 … 9999-12-31 (src/domain/dates.ts).
      onCreate: (ajv: { addFormat: (name: string, format: (value: string) => boolean) => unknown }) => { ajv.addFormat('date', isCalendarDate) },
    } as FastifyServerOptions['ajv'],
  }).withTypeProvider<TypeBoxTypeProvider>()

  app.decorate('config', config)
  app.decorate('services', options.services)
  const routeTable: RouteEntry[] = []
  app.decorate('routeTable', routeTable)
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method]
    for (const method of methods) routeTable.push({ method, url: route.url, access: route.config?.access, json: answersJson(route.config), schema: route.schema })
  })
  // Metrics first, so that a request refused by a later hook is still counted (src/http/metrics/).
  if (options.services.metrics !== undefined) registerRequestMetrics(app, options.services.metrics)
  registerRequestHooks(app, options.services)
  // Redis given up for in-process counters, and back: once per switch (docs/reliability.md).
  options.services.health.watchCounters((event) => {
    if (event.state === 'fallback') app.log.warn({ err: event.error }, 'redis unreachable: rate limits and lockout use in-process counters with stricter limits')
    else app.log.info('redis reachable again: rate limits and lockout shared through redis')
  })
  // A heavy-read worker that failed with no request on it: once per failed pool (docs/storage.md).
  options.services.health.watchHeavyReads((error) => {
    app.log.error({ err: error }, 'heavy-read worker failed outside any request: the next heavy read starts new workers')
  })
  registerErrorHandling(app)
  // ETag/304 first, then compression: onSend hooks run in this order (src/http/plugins/*.ts).
  await app.register(conditionalGetPlugin)
  await app.register(compressionPlugin)
  // Before the routes: the OpenAPI document learns each route as it is added (onRoute).
  await app.register(openApiPlugin)
  await app.register(registerRoutes)
  return app
}

/** TRUST_PROXY=<n>: trust the n nearest hops (what Fastify does with a number, which its types omit). */
function trustHops (hops: number): (address: string, hop: number) => boolean {
  return (_address, hop) => hop < hops
}
