import type { Principal } from '../domain/principal.js'
import type { ValidationIssue } from '../domain/errors.js'

/**
 * How each route is reached, declared once in its options (`config.access`) and read by the
 * request hooks that enforce it (src/http/hooks.ts) and by the OpenAPI document that shows it
 * (security, rate-limit headers, 401s). A route without a declaration is public and unlimited
 * (the /docs assets).
 */
export type RouteAccess =
  /** A partner route: bearer token, then the per-user rate limit (docs/api-reference.md "Authentication"; docs/api-reference.md "Rate limiting"). */
  | { auth: 'bearer', rateLimit: 'user' }
  /** A public route counted per client IP (POST /auth/login). */
  | { auth: 'none', rateLimit: 'ip' }
  /** A public, unlimited route (/health, /openapi.json). */
  | { auth: 'none', rateLimit: 'none' }

export const PARTNER_ROUTE: RouteAccess = { auth: 'bearer', rateLimit: 'user' }
export const LOGIN_ROUTE: RouteAccess = { auth: 'none', rateLimit: 'ip' }
export const PUBLIC_ROUTE: RouteAccess = { auth: 'none', rateLimit: 'none' }

/** A rule over several parameters, applied after each one's own schema (e.g. the period). */
export type QueryRule = (query: Readonly<Record<string, unknown>>, today: string) => ValidationIssue[]

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: RouteAccess
    /** The 500 detail of the route (e.g. "Error fetching analytics"). */
    internalErrorDetail?: string
    /** Rules across query parameters; their issues join the schema's in one 422. */
    queryRules?: readonly QueryRule[]
    /**
     * Body members the route itself refuses by their format before any store sees them, so the
     * hook of src/http/storable-input.ts leaves them to it (the login's keys: a malformed key is
     * the contract's 401, a NUL in it included).
     */
    formatCheckedMembers?: readonly string[]
  }
  interface FastifyRequest {
    /** Set by the authentication hook on bearer routes; only read it there. */
    principal: Principal
    /** The UTC date the request is judged by (defaults of since/until), fixed once per request. */
    today: string
    /** Issues of the route's query rules, reported with the schema's (see src/http/hooks.ts). */
    queryIssues: ValidationIssue[]
  }
}
