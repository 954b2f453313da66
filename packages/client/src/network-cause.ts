/**
 * Turns what fetch throws when no HTTP answer arrives into one readable clause. Node's fetch
 * (undici) throws `TypeError: fetch failed` and keeps the real reason in `error.cause`: a system
 * error (ECONNREFUSED, ENOTFOUND…), an AggregateError when several addresses were tried (IPv6 and
 * IPv4 for "localhost"), an undici error (UND_ERR_*), or a TLS error. An abort by our own timeout
 * is a DOMException named TimeoutError. "fetch failed" alone names none of these.
 */

interface SystemErrorLike {
  message?: unknown
  code?: unknown
  address?: unknown
  port?: unknown
  hostname?: unknown
  errors?: unknown
  cause?: unknown
}

const TLS_CODES = /^(ERR_SSL_|ERR_TLS_|CERT_|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$|UNABLE_TO_|EPROTO$)/

/** `127.0.0.1:1`, `[::1]:8000`, or the host name alone when that is all the error says. */
function endpointOf (error: SystemErrorLike): string | undefined {
  if (typeof error.address === 'string') {
    const host = error.address.includes(':') ? `[${error.address}]` : error.address
    return typeof error.port === 'number' ? `${host}:${error.port}` : host
  }
  return typeof error.hostname === 'string' ? error.hostname : undefined
}

/** The code and every endpoint it was seen on: `ECONNREFUSED [::1]:8000, 127.0.0.1:8000`. */
function codeAndEndpoints (error: SystemErrorLike, code: string): string {
  const attempts = Array.isArray(error.errors) ? error.errors as SystemErrorLike[] : [error]
  const endpoints = [...new Set(attempts.map(endpointOf).filter((endpoint) => endpoint !== undefined))]
  return endpoints.length === 0 ? code : `${code} ${endpoints.join(', ')}`
}

/** The innermost useful error: fetch's TypeError wraps the real one in `cause`. */
function rootOf (error: unknown): SystemErrorLike {
  let current = error as SystemErrorLike
  while (current !== null && typeof current === 'object' && typeof current.code !== 'string' && current.cause !== undefined) {
    current = current.cause as SystemErrorLike
  }
  return current !== null && typeof current === 'object' ? current : { message: String(error) }
}

/** e.g. "connection refused (ECONNREFUSED 127.0.0.1:8000)", "no answer within 5 s (timeout)". */
export function describeNetworkFailure (error: unknown, request: { url: string, timeoutMs: number }): string {
  if (error instanceof Error && error.name === 'TimeoutError') return `no answer within ${request.timeoutMs / 1000} s (timeout)`
  const root = rootOf(error)
  const message = typeof root.message === 'string' && root.message !== '' ? root.message : 'unknown network error'
  if (message === 'bad port') {
    // fetch never connects to ports such as 1, 25 or 6000 (the Fetch standard's "bad ports").
    return `fetch refuses to connect to port ${new URL(request.url).port} (a "bad port" of the Fetch standard)`
  }
  if (typeof root.code !== 'string') return message
  const code = root.code
  switch (code) {
    case 'ECONNREFUSED': return `connection refused (${codeAndEndpoints(root, code)})`
    case 'ENOTFOUND': return `host not found (${codeAndEndpoints(root, code)})`
    case 'EAI_AGAIN': return `DNS lookup failed (${codeAndEndpoints(root, code)})`
    case 'ECONNRESET':
    case 'EPIPE':
    case 'UND_ERR_SOCKET': return `connection closed by the other side (${code})`
    case 'ETIMEDOUT':
    case 'UND_ERR_CONNECT_TIMEOUT': return `connection timed out (${codeAndEndpoints(root, code)})`
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT': return `no answer in time (${code})`
    case 'EHOSTUNREACH':
    case 'ENETUNREACH': return `host unreachable (${codeAndEndpoints(root, code)})`
  }
  // OpenSSL's own text for handshake failures is a long internal path; the code says it all.
  if (code.startsWith('ERR_SSL_') || code === 'EPROTO') return `TLS handshake failed (${code}: the server may not speak HTTPS on this port)`
  if (TLS_CODES.test(code)) return `TLS certificate rejected: ${message} (${code})`
  return `${message} (${code})`
}
