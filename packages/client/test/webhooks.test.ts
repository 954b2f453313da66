import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { signedHeaders } from '../../../src/domain/webhooks/signing.js'
import { verifyWebhook, WebhookVerificationError, type WebhookVerificationReason } from '../src/index.js'

/**
 * verifyWebhook against the Standard Webhooks specification's own example (so a receiver using any
 * conforming library agrees with us), against the service's signer, and against every way a
 * delivery can be wrong: another secret, an edited body, a stale or future timestamp, missing
 * headers, two signatures after a rotation.
 */

// The example of the Standard Webhooks specification (github.com/standard-webhooks/standard-webhooks).
const SPEC = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
}
const specHeaders = (signature = SPEC.signature) => ({ 'webhook-id': SPEC.id, 'webhook-timestamp': String(SPEC.timestamp), 'webhook-signature': signature })

function refused (run: () => unknown, reason: WebhookVerificationReason): void {
  assert.throws(run, (error: unknown) => error instanceof WebhookVerificationError && error.reason === reason)
}

describe('verifyWebhook', () => {
  it('accepts the specification\'s example and returns the parsed body', () => {
    assert.deepEqual(verifyWebhook(SPEC.secret, specHeaders(), SPEC.body, { nowSeconds: SPEC.timestamp }), { test: 2432232314 })
    // A Buffer body, bytes, a fetch Headers object and header names in any case work alike.
    assert.doesNotThrow(() => verifyWebhook(SPEC.secret, specHeaders(), Buffer.from(SPEC.body), { nowSeconds: SPEC.timestamp }))
    assert.doesNotThrow(() => verifyWebhook(SPEC.secret, new Headers(specHeaders()), new TextEncoder().encode(SPEC.body), { nowSeconds: SPEC.timestamp }))
    assert.doesNotThrow(() => verifyWebhook(SPEC.secret, { 'Webhook-Id': SPEC.id, 'WEBHOOK-TIMESTAMP': String(SPEC.timestamp), 'webhook-signature': SPEC.signature }, SPEC.body, { nowSeconds: SPEC.timestamp }))
  })

  it('accepts when any of several signatures matches, whatever their order (a secret rotation)', () => {
    const other = 'v1,' + Buffer.alloc(32, 7).toString('base64')
    for (const header of [`${other} ${SPEC.signature}`, `${SPEC.signature} ${other}`, `v2,abc ${SPEC.signature}`]) {
      assert.doesNotThrow(() => verifyWebhook(SPEC.secret, specHeaders(header), SPEC.body, { nowSeconds: SPEC.timestamp }), header)
    }
  })

  it('agrees with the service\'s signer, for each of two secrets', () => {
    const secrets = ['whsec_' + Buffer.alloc(32, 1).toString('base64'), 'whsec_' + Buffer.alloc(32, 2).toString('base64')]
    const body = '{"id":"evt_7","type":"webhook.test","created_at":"2026-11-25T10:00:00Z","sync_id":null,"data":{"webhook_id":"wh_x"}}'
    const headers = signedHeaders(secrets, 'evt_7', 1_795_000_000, body)
    for (const secret of secrets) assert.equal(verifyWebhook(secret, headers, body, { nowSeconds: 1_795_000_100 }).type, 'webhook.test')
    refused(() => verifyWebhook('whsec_' + Buffer.alloc(32, 3).toString('base64'), headers, body, { nowSeconds: 1_795_000_100 }), 'no_matching_signature')
  })

  it('refuses another secret, an edited body, an edited id or timestamp', () => {
    const now = { nowSeconds: SPEC.timestamp }
    refused(() => verifyWebhook('whsec_' + Buffer.alloc(24, 9).toString('base64'), specHeaders(), SPEC.body, now), 'no_matching_signature')
    refused(() => verifyWebhook(SPEC.secret, specHeaders(), '{"test": 2432232315}', now), 'no_matching_signature')
    refused(() => verifyWebhook(SPEC.secret, { ...specHeaders(), 'webhook-id': 'msg_other' }, SPEC.body, now), 'no_matching_signature')
    refused(() => verifyWebhook(SPEC.secret, { ...specHeaders(), 'webhook-timestamp': String(SPEC.timestamp + 1) }, SPEC.body, { nowSeconds: SPEC.timestamp }), 'no_matching_signature')
    refused(() => verifyWebhook(SPEC.secret, specHeaders('v1,' + SPEC.signature.slice(3, -4) + 'AAA='), SPEC.body, now), 'no_matching_signature')
    refused(() => verifyWebhook(SPEC.secret, specHeaders(SPEC.signature.replace('v1,', 'v2,')), SPEC.body, now), 'no_matching_signature')
    refused(() => verifyWebhook(SPEC.secret, specHeaders('garbage'), SPEC.body, now), 'no_matching_signature')
  })

  it('refuses a timestamp outside the tolerance, either way (default 300 s)', () => {
    assert.doesNotThrow(() => verifyWebhook(SPEC.secret, specHeaders(), SPEC.body, { nowSeconds: SPEC.timestamp + 300 }))
    assert.doesNotThrow(() => verifyWebhook(SPEC.secret, specHeaders(), SPEC.body, { nowSeconds: SPEC.timestamp - 300 }))
    refused(() => verifyWebhook(SPEC.secret, specHeaders(), SPEC.body, { nowSeconds: SPEC.timestamp + 301 }), 'timestamp_out_of_tolerance')
    refused(() => verifyWebhook(SPEC.secret, specHeaders(), SPEC.body, { nowSeconds: SPEC.timestamp - 301 }), 'timestamp_out_of_tolerance')
    assert.doesNotThrow(() => verifyWebhook(SPEC.secret, specHeaders(), SPEC.body, { nowSeconds: SPEC.timestamp + 3000, toleranceSeconds: 3600 }))
    // The real clock by default: the example is years old.
    refused(() => verifyWebhook(SPEC.secret, specHeaders(), SPEC.body), 'timestamp_out_of_tolerance')
    refused(() => verifyWebhook(SPEC.secret, { ...specHeaders(), 'webhook-timestamp': '1614265330.5' }, SPEC.body, { nowSeconds: SPEC.timestamp }), 'timestamp_out_of_tolerance')
  })

  it('refuses missing headers, a secret without whsec_, and a body that is not JSON', () => {
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
      const headers: Record<string, string> = specHeaders()
      delete headers[name]
      refused(() => verifyWebhook(SPEC.secret, headers, SPEC.body, { nowSeconds: SPEC.timestamp }), 'missing_headers')
    }
    refused(() => verifyWebhook(SPEC.secret.slice(6), specHeaders(), SPEC.body, { nowSeconds: SPEC.timestamp }), 'bad_secret')
    const secret = 'whsec_' + Buffer.alloc(32, 5).toString('base64')
    const headers = signedHeaders([secret], 'evt_1', 1000, 'not json')
    refused(() => verifyWebhook(secret, headers, 'not json', { nowSeconds: 1000 }), 'body_not_json')
  })
})
