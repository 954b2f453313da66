import type { FastifyContextConfig } from 'fastify'

/** The media type of every JSON answer (docs/api-reference.md "Basics"): the contract's, exactly. */
export const JSON_MEDIA_TYPE = 'application/json; charset=utf-8'

/**
 * Whether a route answers JSON: every API route does — one that declares its access
 * (src/http/route-access.ts). The request hooks give such a route's reply this type before its
 * handler runs, so whatever writes the body (the route's schema serializer, a serializer chosen
 * per reply, JSON rendered ahead of time, the error handler) sends it with the type, and no route
 * has to remember to. The static pages (/dashboard, the /docs assets) declare no access and keep
 * the type of what they serve.
 */
export function answersJson (config: FastifyContextConfig | undefined): boolean {
  return config?.access !== undefined
}
