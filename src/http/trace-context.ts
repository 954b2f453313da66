import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'

/**
 * W3C Trace Context (docs/operations.md "Tracing"): an inbound `traceparent` is kept — its trace id
 * is on every log line of the request and in the `traceparent` of the response, whose parent id is
 * this service's span — and an invalid or missing one starts a new trace. Parsed per the
 * specification: version 2 lowercase hex digits other than `ff`; for version 00 exactly
 * `00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>`, the ids not all zeros; a later version
 * may append `-…` fields, which are ignored.
 */

export interface TraceContext {
  traceId: string
  /** This service's span id: the parent id of the response's traceparent. */
  spanId: string
  /** The trace flags as received (sampled bit included); 00 for a trace started here. */
  flags: string
}

const HEX = /^[0-9a-f]+$/
const ALL_ZEROS = /^0+$/
const CONTEXT = Symbol('traceContext')

/** The context of a traceparent header, or undefined when it is not a valid one. */
export function parseTraceparent (header: string | undefined): Omit<TraceContext, 'spanId'> | undefined {
  if (header === undefined) return undefined
  const value = header.trim()
  if (value.length < 55) return undefined
  const version = value.slice(0, 2)
  if (!HEX.test(version) || version === 'ff') return undefined
  // Version 00 has exactly four fields; a later one may add fields after a dash.
  if (version === '00' ? value.length !== 55 : value.length > 55 && value[55] !== '-') return undefined
  if (value[2] !== '-' || value[35] !== '-' || value[52] !== '-') return undefined
  const traceId = value.slice(3, 35)
  const parentId = value.slice(36, 52)
  const flags = value.slice(53, 55)
  if (!HEX.test(traceId) || !HEX.test(parentId) || !HEX.test(flags)) return undefined
  if (ALL_ZEROS.test(traceId) || ALL_ZEROS.test(parentId)) return undefined
  return { traceId, flags }
}

/** 16 random hex digits (a span id), never all zeros. */
function newSpanId (): string {
  return randomUUID().replace(/-/g, '').slice(0, 16)
}

/** The request's trace context, worked out once (by the logger's factory or the first hook). */
export function traceContextOf (request: IncomingMessage): TraceContext {
  const kept = (request as IncomingMessage & { [CONTEXT]?: TraceContext })[CONTEXT]
  if (kept !== undefined) return kept
  const header = request.headers.traceparent
  const inbound = parseTraceparent(Array.isArray(header) ? undefined : header)
  const context: TraceContext = inbound === undefined
    ? { traceId: randomUUID().replace(/-/g, ''), spanId: newSpanId(), flags: '00' }
    : { ...inbound, spanId: newSpanId() }
  ;(request as IncomingMessage & { [CONTEXT]?: TraceContext })[CONTEXT] = context
  return context
}

/** The traceparent of the response: the same trace, this service's span as the parent. */
export function responseTraceparent (context: TraceContext): string {
  return `00-${context.traceId}-${context.spanId}-${context.flags}`
}
