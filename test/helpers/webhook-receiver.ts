import { createHmac, timingSafeEqual } from 'node:crypto'
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * A real HTTP receiver for webhook tests, on 127.0.0.1 and a free port: it records every request
 * (path, headers, raw body, when it came) and answers as each path is told — a status sequence,
 * a hang, a redirect, a large body. Its verifier is written from the Standard Webhooks text alone,
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
  close: () => Promise<void>
}

export async function startReceiver (): Promise<Receiver> {
  const received: ReceivedDelivery[] = []
  const behaviours = new Map<string, Behaviour>()
  const calls = new Map<string, number>()
  const underWay = new Set<string>()
  const overlaps: string[] = []
  const hanging = new Set<ServerResponse>()
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
      const behaviour = behaviours.get(path) ?? {}
      const call = calls.get(path) ?? 0
      calls.set(path, call + 1)
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
    close: async () => {
      for (const response of hanging) response.destroy()
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
