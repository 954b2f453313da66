import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { AppError } from '../../src/domain/errors.js'
import { createTokenService } from '../../src/services/auth/tokens.js'
import { TEST_JWT_SECRET } from '../helpers/app.js'

/**
 * Verified tokens are kept (src/services/auth/tokens.ts), so a token used again is not verified
 * again. What a partner sees must not change: expiry is judged on every use, and a token that
 * differs in any character is verified from scratch.
 */

function codeOf (action: () => unknown): string | undefined {
  try {
    action()
    return undefined
  } catch (error) {
    return error instanceof AppError ? error.code : String(error)
  }
}

describe('verified tokens kept between uses', () => {
  let now = Date.now()
  const tokens = createTokenService({ secret: TEST_JWT_SECRET, algorithm: 'HS256', ttlSeconds: 60 }, () => now)

  it('accepts a token on every use until its exp, then answers TOKEN_EXPIRED on the next use', () => {
    const token = tokens.issue({ sub: 'usr_000000000000000000000001', cid: 'pak_' + 'A'.repeat(24) })
    assert.deepEqual(tokens.verify(token), { sub: 'usr_000000000000000000000001', cid: 'pak_' + 'A'.repeat(24) })
    now += 30_000
    assert.deepEqual(tokens.verify(token), { sub: 'usr_000000000000000000000001', cid: 'pak_' + 'A'.repeat(24) })
    now += 31_000
    assert.equal(codeOf(() => tokens.verify(token)), 'TOKEN_EXPIRED')
  })

  it('verifies a token that differs in one character of its signature from scratch (TOKEN_INVALID)', () => {
    now = Date.now()
    const token = tokens.issue({ sub: 'usr_000000000000000000000002', cid: 'pak_' + 'B'.repeat(24) })
    assert.equal(codeOf(() => tokens.verify(token)), undefined)
    const last = token.at(-2) === 'A' ? 'B' : 'A'
    const tampered = token.slice(0, -2) + last + token.slice(-1)
    assert.equal(codeOf(() => tokens.verify(tampered)), 'TOKEN_INVALID')
    assert.equal(codeOf(() => tokens.verify(token)), undefined)
  })
})
