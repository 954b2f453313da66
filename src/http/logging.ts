import type { FastifyRequest } from 'fastify'

/**
 * What the logs may say about a request (docs/reliability.md "Secrets in logs"). Credentials never
 * reach them, wherever a client puts them: the `Authorization`, `Cookie` and proxy headers, the
 * login body's secret, and any query parameter named like a credential (`access_token`,
 * `api_secret_key`, …) are replaced by `[REDACTED]`; so is anything in the URL shaped like one of
 * our tokens (a JWT) or secrets (`pas_…`), whatever its parameter's name or place in the path.
 */

export const REDACTED = '[REDACTED]'

/** Query parameter names whose value is a credential, whatever their spelling of case and separators. */
const CREDENTIAL_NAME = /token|secret|passw|pwd|auth|session|cookie|signature|credential|api[-_]?key|client[-_]?key|jwt/i

/** A JWT (three base64url parts, the first a JSON object) or an API secret, wherever it appears. */
const CREDENTIAL_VALUE = /eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*|pas_[0-9A-Za-z]{8,}/g

/** Paths of the log objects (pino `redact`) that may hold a credential. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["proxy-authorization"]',
  'req.headers["x-api-key"]',
  'req.body.api_secret_key',
  'headers.authorization',
  'headers.cookie',
  'body.api_secret_key',
]

function safeDecode (text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '))
  } catch {
    return text
  }
}

/** The URL with every credential replaced by [REDACTED]; the path and other parameters kept. */
export function redactUrl (url: string): string {
  const question = url.indexOf('?')
  const path = question === -1 ? url : url.slice(0, question)
  const query = question === -1 ? undefined : url.slice(question + 1)
  const redactedQuery = query?.split('&').map((pair) => {
    const equals = pair.indexOf('=')
    const name = equals === -1 ? pair : pair.slice(0, equals)
    if (equals !== -1 && CREDENTIAL_NAME.test(safeDecode(name))) return `${name}=${REDACTED}`
    return pair
  }).join('&')
  let redacted = (path.replace(CREDENTIAL_VALUE, REDACTED)) + (redactedQuery === undefined ? '' : `?${redactedQuery.replace(CREDENTIAL_VALUE, REDACTED)}`)
  // A credential hidden by percent-encoding: drop the whole query (and path) rather than guess.
  if (hasCredentialValue(safeDecode(redacted))) redacted = REDACTED
  return redacted
}

function hasCredentialValue (text: string): boolean {
  CREDENTIAL_VALUE.lastIndex = 0
  const found = CREDENTIAL_VALUE.test(text)
  CREDENTIAL_VALUE.lastIndex = 0
  return found
}

/** Fastify's own `req` log serializer, with the URL redacted. */
export function serializeRequest (request: FastifyRequest): Record<string, unknown> {
  return {
    method: request.method,
    url: redactUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  }
}
