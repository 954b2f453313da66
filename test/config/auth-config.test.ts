import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { ConfigError, loadConfig } from '../../src/config/load.js'

/** The configuration variables added for authentication and rate limiting (docs/configuration.md). */

function problemsOf (env: Record<string, string>): string[] {
  try {
    loadConfig(env)
  } catch (error) {
    assert.ok(error instanceof ConfigError)
    return error.problems
  }
  return []
}

describe('auth and rate-limit configuration', () => {
  it('defaults to HS256, prefix "pa:" and no trusted proxy', () => {
    const config = loadConfig({})
    assert.equal(config.jwtAlgorithm, 'HS256')
    assert.equal(config.redisKeyPrefix, 'pa:')
    assert.equal(config.trustProxy, false)
  })

  it('reads JWT_ALGORITHM, REDIS_KEY_PREFIX and every form of TRUST_PROXY', () => {
    const config = loadConfig({ JWT_ALGORITHM: 'HS512', REDIS_KEY_PREFIX: 'prod-eu:' })
    assert.equal(config.jwtAlgorithm, 'HS512')
    assert.equal(config.redisKeyPrefix, 'prod-eu:')
    assert.equal(loadConfig({ TRUST_PROXY: 'true' }).trustProxy, true)
    assert.equal(loadConfig({ TRUST_PROXY: 'FALSE' }).trustProxy, false)
    assert.equal(loadConfig({ TRUST_PROXY: '0' }).trustProxy, false)
    assert.equal(loadConfig({ TRUST_PROXY: '2' }).trustProxy, 2)
    assert.equal(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' }).trustProxy, '10.0.0.0/8,127.0.0.1')
  })

  it('names each bad variable in one line', () => {
    assert.deepEqual(problemsOf({ JWT_ALGORITHM: 'none', REDIS_KEY_PREFIX: 'has space', TRUST_PROXY: 'yes please' }).sort(), [
      'JWT_ALGORITHM must be one of HS256, HS384, HS512 (got "none")',
      'REDIS_KEY_PREFIX must be 1 to 64 printable characters without spaces (got "has space")',
      'TRUST_PROXY must be true, false, a hop count or a comma-separated list of IP addresses/CIDRs (got "yes please")',
    ])
    assert.deepEqual(problemsOf({ JWT_ALGORITHM: 'RS256' }), ['JWT_ALGORITHM must be one of HS256, HS384, HS512 (got "RS256")'])
  })

  it('reads REDIS_FALLBACK_DIVISOR (default 2, 1 to 1000)', () => {
    assert.equal(loadConfig({}).redisFallbackDivisor, 2)
    assert.equal(loadConfig({ REDIS_FALLBACK_DIVISOR: '4' }).redisFallbackDivisor, 4)
    for (const bad of ['0', '1001', '1.5', 'two']) {
      assert.deepEqual(problemsOf({ REDIS_FALLBACK_DIVISOR: bad }), [`REDIS_FALLBACK_DIVISOR must be an integer from 1 to 1000 (got "${bad}")`])
    }
  })
})
