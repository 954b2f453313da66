import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'

/** An inbound X-Request-Id is reused when it is 1-128 chars of [A-Za-z0-9._-] (docs/api-reference.md "Basics"). */
const ACCEPTABLE_REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/

/**
 * An id shaped like a credential (an API secret, a JWT) is not echoed nor logged: a client that
 * pasted its secret in the wrong header must not find it in our logs (docs/reliability.md).
 */
const CREDENTIAL_SHAPED = /pas_[0-9A-Za-z]{8,}|eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\./

export function requestIdFor (request: IncomingMessage): string {
  const inbound = request.headers['x-request-id']
  const candidate = Array.isArray(inbound) ? inbound[inbound.length - 1] : inbound
  return candidate !== undefined && ACCEPTABLE_REQUEST_ID.test(candidate) && !CREDENTIAL_SHAPED.test(candidate) ? candidate : randomUUID()
}
