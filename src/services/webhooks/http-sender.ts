import http from 'node:http'
import https from 'node:https'
import { VERSION } from '../../config/version.js'
import { storableTextOf } from '../../domain/storable-text.js'
import { RESPONSE_EXCERPT_LIMIT, RESPONSE_READ_LIMIT } from '../../domain/webhooks/webhooks.js'
import type { ResolvedAddress } from './target-policy.js'

/**
 * One POST of a delivery, with Node's own http/https clients: nothing else gives as plain a hold
 * on what matters here. The request goes to the address the target policy judged (the `host`
 * option; the URL's name travels in the Host header and, for TLS, as the server name the
 * certificate is checked against), so the name cannot resolve to something else between the
 * judgement and the connection. Redirects are never followed (node:http does not follow them).
 * At most RESPONSE_READ_LIMIT bytes of the body are read, then the connection is cut. Everything
 * — connecting, TLS, sending, the answer — is bounded by the caller's AbortSignal; a status that
 * came within it stands even when the signal then cuts the body (read until the limit, no longer).
 *
 * Connections are kept alive per judged address (the agents pool by address, port and server
 * name), so a kept connection only ever serves the address that was judged for this attempt.
 */

export interface SendOutcome {
  /** The response's status, or null when none came. */
  httpStatus: number | null
  /** Why no usable answer came (timeout, refused connection, TLS…); null when a status came and it was 2xx. */
  error: string | null
  /** The first bytes of the body, as storable text (at most RESPONSE_EXCERPT_LIMIT bytes; NUL and invalid UTF-8 each U+FFFD). */
  responseExcerpt: string | null
}

export interface Agents {
  http: http.Agent
  https: https.Agent
  destroy: () => void
}

/**
 * The agents put no cap of their own on sockets per host: the worker's limits per endpoint and in
 * all already bound them, and a cap per host would make endpoints of different partners on one
 * host (a shared webhook service) wait behind each other — a hanging one holding the sockets.
 */
export function createAgents (limits: { perEndpoint: number, total: number }): Agents {
  const options = { keepAlive: true, keepAliveMsecs: 1000, maxSockets: Infinity, maxFreeSockets: limits.total, timeout: 30_000, scheduling: 'fifo' as const }
  const agents = { http: new http.Agent(options), https: new https.Agent(options) }
  return { ...agents, destroy: () => { agents.http.destroy(); agents.https.destroy() } }
}

const USER_AGENT = `PartnerAnalytics-Webhooks/${VERSION}`

export async function postDelivery (url: URL, target: ResolvedAddress, headers: Record<string, string>, body: string, signal: AbortSignal, agents: Agents): Promise<SendOutcome> {
  const secure = url.protocol === 'https:'
  const payload = Buffer.from(body, 'utf8')
  return await new Promise<SendOutcome>((resolve) => {
    let settled = false
    const finish = (outcome: SendOutcome): void => {
      if (settled) return
      settled = true
      resolve(outcome)
    }
    const options: https.RequestOptions = {
      method: 'POST',
      host: target.address,
      family: target.family,
      port: url.port === '' ? (secure ? 443 : 80) : Number(url.port),
      path: `${url.pathname}${url.search}`,
      headers: {
        host: url.host,
        'content-type': 'application/json',
        'content-length': String(payload.length),
        'user-agent': USER_AGENT,
        ...headers,
      },
      agent: secure ? agents.https : agents.http,
      signal,
      // The certificate must name the URL's host, not the address connected to.
      ...(secure && !isAddressLiteral(url.hostname) ? { servername: url.hostname } : {}),
    }
    /** Set once the status came: from then on the outcome is that status, whatever befalls the body. */
    let answered: (() => void) | undefined
    const request = (secure ? https : http).request(options, (response) => {
      const status = response.statusCode ?? null
      const chunks: Buffer[] = []
      let read = 0
      const done = (): void => {
        const excerpt = storableTextOf(Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_LIMIT))
        const redirect = status !== null && status >= 300 && status < 400 ? `redirect not followed (Location: ${String(response.headers.location ?? '').slice(0, 200)})` : null
        finish({ httpStatus: status, error: redirect, responseExcerpt: excerpt === '' ? null : excerpt })
      }
      answered = done
      response.on('data', (chunk: Buffer) => {
        if (read >= RESPONSE_READ_LIMIT) return
        chunks.push(chunk.subarray(0, RESPONSE_READ_LIMIT - read))
        read += Math.min(chunk.length, RESPONSE_READ_LIMIT - read)
        // Enough read: the rest is never downloaded (the connection is cut, not reused).
        if (read >= RESPONSE_READ_LIMIT) { done(); response.destroy() }
      })
      response.on('end', done)
      // The status is known: a body cut short (aborted, reset) does not change the outcome.
      response.on('error', done)
      response.on('close', done)
    })
    // An error after the status (the time limit cut a body still trickling in, a reset) ends the
    // body, not the answer: a 2xx within the limit is a success with what of its body came.
    request.on('error', (error: NodeJS.ErrnoException) => {
      if (answered !== undefined) answered()
      else finish({ httpStatus: null, error: describeError(error, signal), responseExcerpt: null })
    })
    request.end(payload)
  })
}

function isAddressLiteral (hostname: string): boolean {
  return /^[\d.]+$/.test(hostname) || hostname.startsWith('[')
}

const CODES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  EPIPE: 'connection closed while sending',
  HPE_INVALID_CONSTANT: 'not an HTTP response',
}

/** A short, stable description of a network failure (shown in the delivery log). */
export function describeError (error: NodeJS.ErrnoException, signal: AbortSignal): string {
  if (signal.aborted) {
    const reason = signal.reason as { name?: string } | undefined
    return reason?.name === 'TimeoutError' ? 'timeout: no answer in time' : 'aborted: the service was stopping'
  }
  const code = error.code ?? ''
  if (CODES[code] !== undefined) return `${CODES[code]} (${code})`
  if (/CERT|TLS|SSL/.test(code) || /certificate|tls|ssl/i.test(error.message)) return `TLS error (${code === '' ? error.message.slice(0, 100) : code})`
  return code === '' ? `network error: ${error.message.slice(0, 120)}` : `network error (${code})`
}
