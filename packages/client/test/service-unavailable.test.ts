import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { PartnerAnalyticsClient, ServerError, ServiceUnavailableError } from '../src/index.js'

/**
 * 503 SERVICE_UNAVAILABLE (too many large reports waiting on the server) is retried like a 429:
 * Retry-After plus jittered backoff, a bounded number of times. A full heavy-report lane cannot be
 * provoked on demand on a real server without racing it, so this server answers the way the
 * service does when its lane is full (body and headers as docs/api-reference.md "Codes").
 */
describe('client on 503 SERVICE_UNAVAILABLE', () => {
  let server: Server
  let baseUrl: string
  let refusals = 0
  const calls: string[] = []

  before(async () => {
    server = createServer((request, response) => {
      calls.push(`${request.method ?? ''} ${request.url ?? ''}`)
      if (refusals > 0) {
        refusals -= 1
        response.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1', 'x-request-id': 'req-503' })
        response.end(JSON.stringify({ detail: 'Too many large reports are being computed. Please retry in 1 second.', error_code: 'SERVICE_UNAVAILABLE', status_code: 503, status: 'error', timestamp: '2026-11-22T12:00:00Z', request_id: 'req-503' }))
        return
      }
      response.writeHead(200, { 'content-type': 'application/json' })
      response.end(JSON.stringify({ data: [], brand_id: null, period: { since: '2026-01-01', until: '2026-12-31' } }))
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  after(async () => { await new Promise((resolve) => server.close(resolve)) })

  function clientWith (waits: number[], maxAttempts: number): PartnerAnalyticsClient {
    return new PartnerAnalyticsClient({
      baseUrl,
      clientKey: 'pak_unused',
      secretKey: 'pas_unused',
      accessToken: 'a.b.c',
      backoff: { maxAttempts, baseDelayMs: 100, random: () => 0.5 },
      sleep: async (ms) => { waits.push(ms) },
    })
  }

  it('waits Retry-After plus backoff and retries until the report is answered', async () => {
    refusals = 2
    calls.length = 0
    const waits: number[] = []
    const report = await clientWith(waits, 3).analytics({ type: 'agg', since: '2026-01-01', until: '2026-12-31' })
    assert.deepEqual(report.data, [])
    assert.equal(calls.length, 3)
    assert.deepEqual(waits, [1000 + 75, 1000 + 150])
  })

  it('throws ServiceUnavailableError, a ServerError, once every attempt was refused', async () => {
    refusals = 5
    calls.length = 0
    const error = await clientWith([], 2).analytics({ type: 'agg' }).catch((caught: unknown) => caught)
    assert.ok(error instanceof ServiceUnavailableError)
    assert.ok(error instanceof ServerError)
    assert.equal(error.status, 503)
    assert.equal(error.errorCode, 'SERVICE_UNAVAILABLE')
    assert.equal(error.retryAfterSeconds, 1)
    assert.equal(error.requestId, 'req-503')
    assert.equal(calls.length, 2)
  })
})
