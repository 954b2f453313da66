#!/usr/bin/env node
// `npm test`: every test file under test/ (and packages/*/test/), on Node's own test runner with
// tsx for TypeScript. Node 20's --test does not expand globs, hence this small launcher.
// Extra arguments are passed through, e.g. `npm test -- test/http/health.test.ts`.
// PostgreSQL and Redis are checked first: with either down, one message says which and how to
// start it, and no test runs (rather than a wall of cancelled tests and raw ECONNREFUSED).
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { globSync } from 'glob'
import { Redis } from 'ioredis'
import pg from 'pg'

const POSTGRES_URL = process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test'
const REDIS_URL = process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379'
const PROBE_TIMEOUT_MS = 3000

/** The URL with its password replaced, fit to print. */
function masked (url) {
  try {
    const parsed = new URL(url)
    if (parsed.password !== '') parsed.password = '***'
    return parsed.toString()
  } catch {
    return url
  }
}

function reason (error) {
  return error instanceof Error && error.message !== '' ? error.message : String(error)
}

async function probePostgres () {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: PROBE_TIMEOUT_MS })
  client.on('error', () => {})
  try {
    await client.connect()
    await client.query('select 1')
    return undefined
  } catch (error) {
    return reason(error)
  } finally {
    await client.end().catch(() => {})
  }
}

async function probeRedis () {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, connectTimeout: PROBE_TIMEOUT_MS, maxRetriesPerRequest: 0, retryStrategy: () => null, enableOfflineQueue: false })
  // The socket's own error (ECONNREFUSED …) says more than the rejection ("Connection is closed").
  let socketError
  redis.on('error', (error) => { socketError ??= error })
  try {
    await redis.connect()
    await redis.ping()
    return undefined
  } catch (error) {
    return reason(socketError ?? error)
  } finally {
    redis.disconnect()
  }
}

/** The PostgreSQL cluster version for pg_ctlcluster, as .ci/run finds it. */
function postgresVersion () {
  const versions = existsSync('/etc/postgresql') ? readdirSync('/etc/postgresql') : []
  return versions.length === 1 ? versions[0] : '$(ls /etc/postgresql)'
}

const [postgresDown, redisDown] = await Promise.all([probePostgres(), probeRedis()])
if (postgresDown !== undefined || redisDown !== undefined) {
  const lines = ['npm test needs PostgreSQL and Redis; no test was run because:']
  if (postgresDown !== undefined) {
    lines.push(
      `- PostgreSQL at ${masked(POSTGRES_URL)} does not answer: ${postgresDown}`,
      `  start it: pg_ctlcluster --skip-systemctl-redirect ${postgresVersion()} main start`,
      '  or set TEST_DATABASE_URL to a PostgreSQL database the tests may create schemas in'
    )
  }
  if (redisDown !== undefined) {
    lines.push(
      `- Redis at ${masked(REDIS_URL)} does not answer: ${redisDown}`,
      '  start it: redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no',
      '  or set TEST_REDIS_URL to a Redis server the tests may write to'
    )
  }
  lines.push('(bash .ci/run starts both when they are down, then runs the whole check.)')
  console.error(lines.join('\n'))
  process.exit(1)
}

const requested = process.argv.slice(2).filter((arg) => !arg.startsWith('-'))
const flags = process.argv.slice(2).filter((arg) => arg.startsWith('-'))
const files = requested.length > 0
  ? requested
  : globSync(['test/**/*.test.ts', 'packages/*/test/**/*.test.ts'], { ignore: ['**/node_modules/**'] }).sort()

if (files.length === 0) {
  console.error('no test files found')
  process.exit(1)
}

const result = spawnSync(process.execPath, [
  '--import', 'tsx',
  '--test',
  // Two cores: two test files at a time keeps both busy without thrashing PostgreSQL.
  '--test-concurrency=2',
  ...(process.stdout.isTTY ? [] : ['--test-reporter=spec']),
  ...flags,
  ...files,
], { stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' } })

process.exit(result.status ?? 1)
