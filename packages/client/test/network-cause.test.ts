import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { describeNetworkFailure } from '../src/network-cause.js'

/**
 * The causes a test machine cannot produce on demand (no DNS server, no certificates), in the
 * shapes Node's fetch throws them: `TypeError('fetch failed')` with the system error as `cause`.
 * Connection refused, timeouts, bad ports and TLS version mismatches are exercised for real in
 * export.test.ts.
 */
const fetchFailed = (cause: object) => new TypeError('fetch failed', { cause })
const systemError = (message: string, fields: Record<string, unknown>) => Object.assign(new Error(message), fields)
const describe1 = (error: unknown) => describeNetworkFailure(error, { url: 'https://api.example.com/auth/login', timeoutMs: 60_000 })

describe('describeNetworkFailure', () => {
  it('names DNS failures with the host', () => {
    assert.equal(describe1(fetchFailed(systemError('getaddrinfo ENOTFOUND api.example.invalid', { code: 'ENOTFOUND', hostname: 'api.example.invalid' }))),
      'host not found (ENOTFOUND api.example.invalid)')
    assert.equal(describe1(fetchFailed(systemError('getaddrinfo EAI_AGAIN api.example.com', { code: 'EAI_AGAIN', hostname: 'api.example.com' }))),
      'DNS lookup failed (EAI_AGAIN api.example.com)')
  })

  it('lists every address tried when several were (AggregateError, IPv6 in brackets)', () => {
    const refused = (address: string) => systemError(`connect ECONNREFUSED ${address}:8000`, { code: 'ECONNREFUSED', address, port: 8000 })
    const aggregate = Object.assign(new AggregateError([refused('::1'), refused('127.0.0.1')], ''), { code: 'ECONNREFUSED' })
    assert.equal(describe1(fetchFailed(aggregate)), 'connection refused (ECONNREFUSED [::1]:8000, 127.0.0.1:8000)')
  })

  it('says which certificate check failed', () => {
    assert.equal(describe1(fetchFailed(systemError('self-signed certificate', { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }))),
      'TLS certificate rejected: self-signed certificate (DEPTH_ZERO_SELF_SIGNED_CERT)')
    assert.equal(describe1(fetchFailed(systemError('certificate has expired', { code: 'CERT_HAS_EXPIRED' }))),
      'TLS certificate rejected: certificate has expired (CERT_HAS_EXPIRED)')
  })

  it('names undici timeouts and resets, and our own timeout with its length', () => {
    assert.equal(describe1(fetchFailed(systemError('Connect Timeout Error', { code: 'UND_ERR_CONNECT_TIMEOUT' }))), 'connection timed out (UND_ERR_CONNECT_TIMEOUT)')
    assert.equal(describe1(fetchFailed(systemError('Headers Timeout Error', { code: 'UND_ERR_HEADERS_TIMEOUT' }))), 'no answer in time (UND_ERR_HEADERS_TIMEOUT)')
    assert.equal(describe1(fetchFailed(systemError('other side closed', { code: 'UND_ERR_SOCKET' }))), 'connection closed by the other side (UND_ERR_SOCKET)')
    assert.equal(describe1(new DOMException('The operation was aborted due to timeout', 'TimeoutError')), 'no answer within 60 s (timeout)')
  })

  it('falls back to the cause message and code, never to "fetch failed" alone', () => {
    assert.equal(describe1(fetchFailed(systemError('something odd', { code: 'EWEIRD' }))), 'something odd (EWEIRD)')
    assert.equal(describe1(new Error('plain')), 'plain')
  })
})
