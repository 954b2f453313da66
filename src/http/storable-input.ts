import type { FastifyRequest } from 'fastify'
import { AppError, type ValidationIssue } from '../domain/errors.js'
import { unstorableCharacter } from '../domain/storable-text.js'

/**
 * Every route's path, query and body text, judged once before the route's own validation
 * (src/http/hooks.ts, preValidation): a string holding a NUL or an unpaired surrogate
 * (src/domain/storable-text.ts) never reaches a service or a store. A path parameter holding one
 * names nothing that can exist: 404. A declared query parameter or a body member holding one is a
 * 422 item naming it (`["query", "name"]`, `["body", "description"]`), listed with the schema's
 * own issues (one item per member: the schema's, when it refuses the member too). A route may leave
 * members to its own format check, made before any store (`formatCheckedMembers`: the login's keys).
 */

/** Deepest nesting looked into: a JSON body is bounded by the body limit, and no route's schema nests deeper. */
const MAX_DEPTH = 32

/** The first unstorable string in `value` (its own text, or a key or a string at any depth), in words. */
function unstorableIn (value: unknown, depth = 0): string | undefined {
  if (typeof value === 'string') return unstorableCharacter(value)
  if (typeof value !== 'object' || value === null || depth > MAX_DEPTH) return undefined
  if (Array.isArray(value)) {
    for (const item of value) {
      const found = unstorableIn(item, depth + 1)
      if (found !== undefined) return found
    }
    return undefined
  }
  for (const [key, item] of Object.entries(value)) {
    const found = unstorableCharacter(key) ?? unstorableIn(item, depth + 1)
    if (found !== undefined) return found
  }
  return undefined
}

/** The items of `members` holding unstorable text; only those `declared` lists, when given, and none the route checks itself. */
function issuesOf (location: 'query' | 'body', members: unknown, declared?: object, checkedByRoute: readonly string[] = []): ValidationIssue[] {
  if (typeof members !== 'object' || members === null) {
    const found = unstorableIn(members)
    return found === undefined ? [] : [{ loc: [location], msg: `Value must not contain ${found}`, type: 'string_unstorable', ctx: {} }]
  }
  const issues: ValidationIssue[] = []
  for (const [name, value] of Object.entries(members)) {
    if ((declared !== undefined && !Object.hasOwn(declared, name)) || checkedByRoute.includes(name)) continue
    const found = unstorableCharacter(name) ?? unstorableIn(value)
    if (found !== undefined) issues.push({ loc: [location, name], msg: `String must not contain ${found}`, type: 'string_unstorable', ctx: {} })
  }
  return issues
}

/**
 * Throws 404 for a path parameter no id can match; returns the 422 items of the query and body
 * (empty when every string is storable).
 */
export function unstorableInputIssues (request: FastifyRequest): ValidationIssue[] {
  for (const [name, value] of Object.entries((request.params ?? {}) as Record<string, unknown>)) {
    if (typeof value !== 'string') continue
    const found = unstorableCharacter(value)
    if (found !== undefined) throw new AppError('NOT_FOUND', `Nothing has the ${name} ${JSON.stringify(value)}: no id holds ${found}`)
  }
  // A query parameter the route does not declare is ignored by it (never read, never stored): only declared ones are judged.
  const declaredQuery = (request.routeOptions.schema?.querystring as { properties?: object } | undefined)?.properties ?? {}
  return [...issuesOf('query', request.query, declaredQuery), ...issuesOf('body', request.body, undefined, request.routeOptions.config?.formatCheckedMembers)]
}
