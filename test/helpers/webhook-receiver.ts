import { createHmac, timingSafeEqual } from 'node:crypto'
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * A real HTTP receiver for webhook tests, on 127.0.0.1 and a free port: it records every request
 * (path, headers, raw body, when it came) and answers as each path is told — a status sequence,
 * a hang, a hold the test ends, a redirect, a large body. It knows which requests are still open
 * (neither answered nor cut by the sender), so a test can prove an order of events — "the
 * bystander was served while these were held" — instead of timing it. Its verifier is written from the Standard Webhooks text alone,
 * independently of the service's signer and of the client's verifyWebhook.
 */

export interface ReceivedDelivery {
  path: string
  headers: IncomingHttpHeaders
  body: string
  receivedAt: number
}

/** How a path answers: statuses in turn (the last repeats), or never (hang). */
export interface Behaviour {
  statuses?: number[]
  hang?: boolean
  /** Never answer until `release` is called for the path, then answer 200 (a slow receiver the test controls). */
  hold?: boolean
  /** Milliseconds before answering. */
  delayMs?: number
  /** Extra headers (e.g. Location on a 302). */
  headers?: Record<string, string>
  /** The body to answer with (bytes as they are: invalid UTF-8, NUL…). */
  body?: string | Buffer
  /** Send the status and headers at once, then the body one byte per this many milliseconds (never ending while bytes remain). */
  trickleMs?: number
}

export interface Receiver {
  /** `http://127.0.0.1:PORT` */
  origin: string
  received: ReceivedDelivery[]
  /** Requests being answered right now, by path and webhook-id (for "never twice at once"). */
  overlaps: string[]
  /** The most requests it was answering at once. */
  maxInFlight: () => number
  on: (path: string, behaviour: Behaviour) => void
  /** The deliveries to one path. */
  at: (path: string) => ReceivedDelivery[]
  /** Requests to paths starting with `prefix` that are still open: not answered, and not cut by the sender. */
  open: (prefix: string) => number
  /** Requests to paths starting with `prefix` that the sender cut before they were answered (its timeout, its stop). */
  cut: (prefix: string) => number
  /** Answers 200 to every held request of paths starting with `prefix`, and stops holding new ones there. */
  release: (prefix: string) => void
  close: () => Promise<void>
}

export async function startReceiver (): Promise<Receiver> {
  const received: ReceivedDelivery[] = []
  const behaviours = new Map<string, Behaviour>()
  const calls = new Map<string, number>()
  const underWay = new Set<string>()
  const overlaps: string[] = []
  const hanging = new Set<ServerResponse>()
  const held = new Map<ServerResponse, string>()
  /** Open requests by path; the paths of requests the sender cut before an answer. */
  const openPaths = new Map<ServerResponse, string>()
  const cutPaths: string[] = []
  const releasing = new Set<string>()
  let inFlight = 0
  let maxInFlight = 0
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const path = request.url ?? '/'
      received.push({ path, headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), receivedAt: Date.now() })
      const key = `${path} ${String(request.headers['webhook-id'])}`
      if (underWay.has(key)) overlaps.push(key)
      underWay.add(key)
      inFlight++
      maxInFlight = Math.max(maxInFlight, inFlight)
      response.on('close', () => { inFlight-- })
      openPaths.set(response, path)
      response.on('finish', () => { openPaths.delete(response) })
      response.on('close', () => {
        if (openPaths.delete(response)) cutPaths.push(path)
      })
      const behaviour = behaviours.get(path) ?? {}
      const call = calls.get(path) ?? 0
      calls.set(path, call + 1)
      if (behaviour.hold === true && ![...releasing].some((prefix) => path.startsWith(prefix))) {
        held.set(response, path)
        response.on('close', () => { held.delete(response); underWay.delete(key) })
        return
      }
      if (behaviour.hang === true) {
        hanging.add(response)
        response.on('close', () => { hanging.delete(response); underWay.delete(key) })
        return
      }
      const statuses = behaviour.statuses ?? [200]
      const status = statuses[Math.min(call, statuses.length - 1)] ?? 200
      setTimeout(() => {
        underWay.delete(key)
        response.writeHead(status, { 'content-type': 'text/plain', ...behaviour.headers })
        const body = behaviour.body ?? (status < 300 ? 'ok' : `status ${status}`)
        if (behaviour.trickleMs === undefined) {
          response.end(body)
          return
        }
        // The status goes out now; the body follows a byte at a time until the client leaves.
        response.flushHeaders()
        const bytes = Buffer.from(body)
        let sent = 0
        hanging.add(response)
        const timer = setInterval(() => {
          if (sent < bytes.length) response.write(bytes.subarray(sent, ++sent))
          else { clearInterval(timer); response.end() }
        }, behaviour.trickleMs)
        response.on('close', () => { clearInterval(timer); hanging.delete(response) })
      }, behaviour.delayMs ?? 0)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    origin: `http://127.0.0.1:${port}`,
    received,
    overlaps,
    maxInFlight: () => maxInFlight,
    on: (path, behaviour) => { behaviours.set(path, behaviour) },
    at: (path) => received.filter((delivery) => delivery.path === path),
    open: (prefix) => [...openPaths.values()].filter((path) => path.startsWith(prefix)).length,
    cut: (prefix) => cutPaths.filter((path) => path.startsWith(prefix)).length,
    release: (prefix) => {
      releasing.add(prefix)
      for (const [response, path] of held) {
        if (!path.startsWith(prefix)) continue
        held.delete(response)
        response.writeHead(200, { 'content-type': 'text/plain' })
        response.end('ok')
      }
    },
    close: async () => {
      for (const response of [...hanging, ...held.keys()]) response.destroy()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/**
 * Standard Webhooks verification, written here from the specification's text: the key is the
 * base64 after `whsec_`, the content `${id}.${timestamp}.${body}`, and any `v1,` signature of the
 * space-separated header may match; the timestamp must be within 5 minutes.
 */
export function independentlyVerified (secret: string, headers: IncomingHttpHeaders, body: string, nowSeconds = Math.floor(Date.now() / 1000)): boolean {
  const id = String(headers['webhook-id'] ?? '')
  const timestamp = String(headers['webhook-timestamp'] ?? '')
  if (!/^\d+$/.test(timestamp) || Math.abs(nowSeconds - Number(timestamp)) > 300) return false
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64')
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest()
  return String(headers['webhook-signature'] ?? '').split(' ').some((entry) => {
    const [version, signature] = entry.split(',')
    if (version !== 'v1' || signature === undefined) return false
    const presented = Buffer.from(signature, 'base64')
    return presented.length === expected.length && timingSafeEqual(presented, expected)
  })
}
