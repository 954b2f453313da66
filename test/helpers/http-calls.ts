import { request } from 'node:http'

/** An answer read whole: status, headers (lower-case names) and body text. */
export interface Answer {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
  json: <T = Record<string, unknown>>() => T
}

/**
 * One request on a connection of its own (no keep-alive agent), so that a server with several
 * workers gets each call as a new connection — the cluster deals connections out in turn.
 * Bounded: 15 s.
 */
export async function call (url: string, options: { method?: string, headers?: Record<string, string>, body?: unknown } = {}): Promise<Answer> {
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body)
  return await new Promise((resolve, reject) => {
    const outgoing = request(url, {
      method: options.method ?? 'GET',
      agent: false,
      timeout: 15_000,
      headers: { ...(payload === undefined ? {} : { 'content-type': 'application/json' }), connection: 'close', ...options.headers },
    }, (response) => {
      let body = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => { body += chunk })
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body, json: <T>() => JSON.parse(body) as T }))
      response.on('error', reject)
    })
    outgoing.on('timeout', () => outgoing.destroy(new Error(`no answer from ${url} within 15 s`)))
    outgoing.on('error', reject)
    outgoing.end(payload)
  })
}
