import { randomUUID } from 'node:crypto'
import type { Socket } from 'node:net'
import { formatUtcSeconds } from '../domain/dates.js'
import { JSON_MEDIA_TYPE } from './media-type.js'

/**
 * The headers every response carries (docs/reliability.md "Security headers"): set by the first
 * onRequest hook, so errors, 401s, 404s and 429s carry them too, and by the two answers Fastify
 * writes before any hook runs (a URL it cannot decode, a request it cannot parse). A route that
 * sets its own value keeps it (a later `reply.header` replaces these): /docs sends Swagger UI's
 * Content-Security-Policy and allows same-origin framing; /openapi.json is cacheable; a dashboard
 * serving HTML sends its own `default-src 'self'` policy.
 *
 * The same set as helmet's defaults, written out for a JSON API: no document of ours loads
 * anything or may be framed, nothing is sniffed, nothing is cached (bodies are partner data and
 * tokens; RFC 6749 §5.1 requires `no-store` and `Pragma: no-cache` on token responses).
 */

/** A JSON answer loads nothing and may not be framed. */
export const API_CONTENT_SECURITY_POLICY = "default-src 'none'; frame-ancestors 'none'"

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': API_CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'x-permitted-cross-domain-policies': 'none',
  // Browsers heed it only over HTTPS, which is how partners reach the service (behind TLS).
  'strict-transport-security': 'max-age=31536000',
  'cache-control': 'no-store',
  pragma: 'no-cache',
}

/** Status lines for the answers Node's HTTP parser leaves to us. */
const CLIENT_ERRORS: Record<string, [number, string]> = {
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout'],
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large'],
}

/**
 * Fastify's `clientErrorHandler`: a request Node could not parse (bad header, header overflow,
 * timeout while receiving it) gets the standard error body and the same headers, then the
 * connection closes. Nothing of the request is echoed.
 */
export function answerClientError (error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return
  const [status, reason] = CLIENT_ERRORS[error.code ?? ''] ?? [400, 'Bad Request']
  const requestId = randomUUID()
  const body = JSON.stringify({
    detail: reason,
    error_code: status === 408 ? 'REQUEST_TIMEOUT' : 'BAD_REQUEST',
    status_code: status,
    status: 'error',
    timestamp: formatUtcSeconds(),
    request_id: requestId,
  })
  const headers = {
    ...SECURITY_HEADERS,
    'content-type': JSON_MEDIA_TYPE,
    'content-length': String(Buffer.byteLength(body)),
    'x-request-id': requestId,
    connection: 'close',
  }
  if (socket.writable) {
    socket.write(`HTTP/1.1 ${status} ${reason}\r\n${Object.entries(headers).map(([name, value]) => `${name}: ${value}`).join('\r\n')}\r\n\r\n${body}`)
  }
  socket.destroy()
}
