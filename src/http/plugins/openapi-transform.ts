import type { FastifySchema, RouteOptions } from 'fastify'

/**
 * Per-route adjustment made while @fastify/swagger reads each route: the route's declared access
 * (src/http/route-access.ts) travels into the operation as `x-access`, where completeDocument
 * turns it into security, rate-limit headers and 401s. It never changes validation or serialization.
 */
export const ACCESS_EXTENSION = 'x-access'

export function transformRouteSchema (schema: FastifySchema, route: Pick<RouteOptions, 'config'>): FastifySchema {
  const access = (route.config as { access?: unknown } | undefined)?.access
  return access === undefined ? schema : { ...schema, [ACCESS_EXTENSION]: access } as FastifySchema
}
