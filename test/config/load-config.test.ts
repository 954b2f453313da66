import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { ConfigError, loadConfig, parseDatabaseUrl, resolveJwtSecret } from '../../src/config/load.js'

function problemsOf (env: Record<string, string>): string[] {
  try {
    loadConfig(env)
  } catch (error) {
    assert.ok(error instanceof ConfigError)
    return error.problems
  }
  assert.fail('expected a ConfigError')
}

describe('loadConfig', () => {
  it('applies the defaults of docs/configuration.md', () => {
    const config = loadConfig({})
    assert.deepEqual(config.database, { kind: 'sqlite', file: './data/partner-analytics.sqlite' })
    assert.equal(config.isDefaultDatabase, true)
    assert.equal(config.host, '127.0.0.1')
    assert.equal(config.port, 8000)
    assert.equal(config.tokenTtlSeconds, 3600)
    assert.deepEqual(config.rateLimit, { perMinute: 600, perHour: 20000 })
    assert.deepEqual(config.login, { maxFailures: 10, maxFailuresPerIp: 100, lockoutSeconds: 900 })
    assert.equal(config.logLevel, 'info')
    assert.equal(config.jwtSecret, undefined)
    assert.ok(Object.isFrozen(config) && Object.isFrozen(config.rateLimit))
  })

  it('reads every variable', () => {
    const config = loadConfig({
      DATABASE_URL: 'postgres://u@h:5432/db',
      HOST: '0.0.0.0',
      PORT: '9000',
      JWT_SECRET: 'x'.repeat(32),
      TOKEN_TTL_SECONDS: '60',
      REDIS_URL: 'redis://127.0.0.1:6379',
      RATE_LIMIT_PER_MINUTE: '0',
      RATE_LIMIT_PER_HOUR: '5',
      LOGIN_MAX_FAILURES: '3',
      LOGIN_MAX_FAILURES_PER_IP: '7',
      LOGIN_LOCKOUT_SECONDS: '30',
      LOG_LEVEL: 'debug',
    })
    assert.deepEqual(config.database, { kind: 'postgres', url: 'postgres://u@h:5432/db' })
    assert.equal(config.isDefaultDatabase, false)
    assert.equal(config.port, 9000)
    assert.equal(config.tokenTtlSeconds, 60)
    assert.equal(config.redisUrl, 'redis://127.0.0.1:6379')
    assert.deepEqual(config.rateLimit, { perMinute: 0, perHour: 5 })
    assert.deepEqual(config.login, { maxFailures: 3, maxFailuresPerIp: 7, lockoutSeconds: 30 })
    assert.equal(config.logLevel, 'debug')
  })

  it('names each bad variable on its own line, all at once', () => {
    assert.deepEqual(problemsOf({ PORT: 'abc', TOKEN_TTL_SECONDS: '0', LOG_LEVEL: 'loud' }).sort(), [
      'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "loud")',
      'PORT must be an integer from 0 to 65535 (got "abc")',
      'TOKEN_TTL_SECONDS must be an integer at least 1 (got "0")',
    ])
    assert.deepEqual(problemsOf({ PORT: '70000' }), ['PORT must be an integer from 0 to 65535 (got "70000")'])
    assert.deepEqual(problemsOf({ RATE_LIMIT_PER_HOUR: '-1' }), ['RATE_LIMIT_PER_HOUR must be an integer at least 0 (got "-1")'])
    assert.deepEqual(problemsOf({ DATABASE_URL: 'mysql://x' }), ['DATABASE_URL must start with sqlite:, postgres:// or postgresql:// (got "mysql://x")'])
    assert.deepEqual(problemsOf({ REDIS_URL: 'localhost:6379' }), ['REDIS_URL must start with redis:// or rediss:// (got "localhost:6379")'])
    assert.deepEqual(problemsOf({ JWT_SECRET: 'short' }), ['JWT_SECRET must be at least 32 characters long'])
  })

  it('requires JWT_SECRET in production only', () => {
    assert.deepEqual(problemsOf({ NODE_ENV: 'production' }), ['JWT_SECRET is required when NODE_ENV=production'])
    assert.equal(loadConfig({ NODE_ENV: 'production', JWT_SECRET: 's'.repeat(40) }).jwtSecret, 's'.repeat(40))
  })

  it('treats a blank variable as unset', () => {
    assert.equal(loadConfig({ PORT: '  ' }).port, 8000)
  })
})

describe('parseDatabaseUrl', () => {
  it('accepts relative and absolute SQLite paths, with one or three slashes', () => {
    assert.deepEqual(parseDatabaseUrl('sqlite:./data/x.sqlite'), { kind: 'sqlite', file: './data/x.sqlite' })
    assert.deepEqual(parseDatabaseUrl('sqlite:x.sqlite'), { kind: 'sqlite', file: 'x.sqlite' })
    assert.deepEqual(parseDatabaseUrl('sqlite:/var/lib/pa.sqlite'), { kind: 'sqlite', file: '/var/lib/pa.sqlite' })
    assert.deepEqual(parseDatabaseUrl('sqlite:///var/lib/pa.sqlite'), { kind: 'sqlite', file: '/var/lib/pa.sqlite' })
  })

  it('accepts both PostgreSQL schemes and refuses an empty SQLite path', () => {
    assert.deepEqual(parseDatabaseUrl('postgresql://h/db'), { kind: 'postgres', url: 'postgresql://h/db' })
    assert.equal(parseDatabaseUrl('sqlite:'), 'DATABASE_URL has no file path after "sqlite:"')
  })
})

describe('the generated JWT_SECRET (README.md, docs/configuration.md)', () => {
  it('is kept beside the SQLite file DATABASE_URL names, not in ./data', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pa-secret-'))
    try {
      const config = resolveJwtSecret(loadConfig({ DATABASE_URL: `sqlite:${join(dir, 'store', 'pa.sqlite')}` }))
      assert.equal(config.dataDir, join(dir, 'store'))
      assert.ok(existsSync(join(dir, 'store', 'jwt-secret')))
      assert.equal(resolveJwtSecret(loadConfig({ DATABASE_URL: `sqlite:${join(dir, 'store', 'pa.sqlite')}` })).jwtSecret, config.jwtSecret, 'read back on the next start')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('goes to ./data of the working directory with PostgreSQL', () => {
    assert.equal(loadConfig({ DATABASE_URL: 'postgres://db.example/pa' }).dataDir, join(process.cwd(), 'data'))
  })
})
