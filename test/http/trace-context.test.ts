import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance } from 'fastify'
import { parseTraceparent } from '../../src/http/trace-context.js'
import { buildLoggedTestApp, captureLogs, type CapturedLogs } from '../helpers/app.js'
import { createTestStore, type TestStore } from '../helpers/stores.js'

/**
 * W3C Trace Context (docs/operations.md "Tracing"): a valid inbound traceparent keeps its trace id
 * on every log line of the request and in the response's traceparent, whose parent id is a span of
 * this service; an invalid or missing one starts a new trace.
 */

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736'
const PARENT = '00f067aa0ba902b7'
const RESPONSE = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/

describe('parseTraceparent', () => {
  it('accepts version 00 exactly and a later version with more fields', () => {
    assert.deepEqual(parseTraceparent(`00-${TRACE}-${PARENT}-01`), { traceId: TRACE, flags: '01' })
    assert.deepEqual(parseTraceparent(` 00-${TRACE}-${PARENT}-00 `), { traceId: TRACE, flags: '00' })
    assert.deepEqual(parseTraceparent(`cc-${TRACE}-${PARENT}-01-what-comes-next`), { traceId: TRACE, flags: '01' })
    assert.deepEqual(parseTraceparent(`01-${TRACE}-${PARENT}-01`), { traceId: TRACE, flags: '01' })
  })

  const INVALID: Array<[string, string | undefined]> = [
    ['absent', undefined],
    ['empty', ''],
    ['version ff', `ff-${TRACE}-${PARENT}-01`],
    ['version 00 with a fifth field', `00-${TRACE}-${PARENT}-01-extra`],
    ['a later version glued to more text', `01-${TRACE}-${PARENT}-01x`],
    ['upper-case hex', `00-${TRACE.toUpperCase()}-${PARENT}-01`],
    ['an all-zero trace id', `00-${'0'.repeat(32)}-${PARENT}-01`],
    ['an all-zero parent id', `00-${TRACE}-${'0'.repeat(16)}-01`],
    ['a short trace id', `00-${TRACE.slice(1)}-${PARENT}-01`],
    ['non-hex flags', `00-${TRACE}-${PARENT}-0g`],
    ['wrong separators', `00_${TRACE}_${PARENT}_01`],
  ]
  for (const [label, header] of INVALID) {
    it(`refuses ${label}`, () => { assert.equal(parseTraceparent(header), undefined) })
  }
})

describe('traceparent on every answer and every log line', () => {
  let test: TestStore
  let app: FastifyInstance
  let logs: CapturedLogs
  before(async () => {
    test = await createTestStore('sqlite')
    logs = captureLogs()
    app = await buildLoggedTestApp(test.store, {}, logs)
  })
  after(async () => {
    await app.close()
    await test.cleanup()
  })

  const linesOf = (requestId: string) => logs.records().filter((line) => line.request_id === requestId)

  it('keeps an inbound trace: same trace id and flags, a new span of ours as the parent, the id on each log line', async () => {
    const response = await app.inject({ method: 'GET', url: '/me', headers: { traceparent: `00-${TRACE}-${PARENT}-01`, 'x-request-id': 'trace-kept' } })
    assert.equal(response.statusCode, 401)
    const [, traceId, spanId, flags] = RESPONSE.exec(String(response.headers.traceparent)) ?? []
    assert.deepEqual([traceId, flags], [TRACE, '01'])
    assert.notEqual(spanId, PARENT)
    assert.notEqual(spanId, '0'.repeat(16))
    const lines = linesOf('trace-kept')
    assert.ok(lines.length >= 2, 'incoming and completed lines')
    for (const line of lines) assert.equal(line.trace_id, TRACE)
  })

  it('starts a trace when the inbound one is invalid or missing, and logs that one', async () => {
    for (const [requestId, headers] of [['trace-bad', { traceparent: `00-${'0'.repeat(32)}-${PARENT}-01` }], ['trace-none', {}]] as const) {
      const response = await app.inject({ method: 'GET', url: '/health', headers: { ...headers, 'x-request-id': requestId } })
      const [, traceId, , flags] = RESPONSE.exec(String(response.headers.traceparent)) ?? []
      assert.ok(traceId !== undefined && traceId !== '0'.repeat(32), requestId)
      assert.equal(flags, '00')
      for (const line of linesOf(requestId)) assert.equal(line.trace_id, traceId, requestId)
    }
  })

  it('gives two requests without a traceparent two traces, and answers unknown paths with one too', async () => {
    const first = await app.inject({ method: 'GET', url: '/health' })
    const second = await app.inject({ method: 'GET', url: '/no/such/path' })
    assert.equal(second.statusCode, 404)
    assert.notEqual(RESPONSE.exec(String(first.headers.traceparent))?.[1], RESPONSE.exec(String(second.headers.traceparent))?.[1])
  })
})
