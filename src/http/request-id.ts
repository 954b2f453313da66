import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'

/** An inbound X-Request-Id is reused when it is 1-128 chars of [A-Za-z0-9._-] (docs/api-reference.md "Basics"). */
const ACCEPTABLE_REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/

export function requestIdFor (request: IncomingMessage): string {
  const inbound = request.headers['x-request-id']
  const candidate = Array.isArray(inbound) ? inbound[inbound.length - 1] : inbound
  return candidate !== undefined && ACCEPTABLE_REQUEST_ID.test(candidate) ? candidate : randomUUID()
}
