import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import { dirname, join, resolve } from 'node:path'
import { JWT_ALGORITHMS, LOG_LEVELS, type Config, type DatabaseConfig, type JwtAlgorithm } from './schema.js'

/**
 * The only module that reads `process.env`. Every variable of DECISIONS.md §9 is parsed here,
 * every bad one is reported at once (one line each, naming the variable), and the result is frozen.
 */

export const DEFAULT_DATABASE_URL = 'sqlite:./data/partner-analytics.sqlite'

export class ConfigError extends Error {
  /** One human line per bad variable, e.g. `PORT must be an integer from 0 to 65535 (got "abc")`. */
  readonly problems: string[]

  constructor (problems: string[]) {
    super(problems.join('\n'))
    this.name = 'ConfigError'
    this.problems = problems
  }
}

type Env = Record<string, string | undefined>

/** A variable counts as absent when unset or blank, as an empty query value does. */
function read (env: Env, name: string): string | undefined {
  const value = env[name]?.trim()
  return value === undefined || value === '' ? undefined : value
}

export function parseDatabaseUrl (url: string): DatabaseConfig | string {
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) return { kind: 'postgres', url }
  if (url.startsWith('sqlite:')) {
    // sqlite:///var/x and sqlite:/var/x name the same file; sqlite:./x and sqlite:x are relative.
    let file = url.slice('sqlite:'.length)
    if (file.startsWith('//')) file = file.replace(/^\/+/, '/')
    if (file === '') return 'DATABASE_URL has no file path after "sqlite:"'
    return { kind: 'sqlite', file }
  }
  return `DATABASE_URL must start with sqlite:, postgres:// or postgresql:// (got "${url}")`
}

export function loadConfig (env: Env = process.env): Config {
  const problems: string[] = []

  function integer (name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
    const raw = read(env, name)
    if (raw === undefined) return fallback
    const value = /^\d+$/.test(raw) ? Number(raw) : Number.NaN
    if (!Number.isSafeInteger(value) || value < min || value > max) {
      const range = max === Number.MAX_SAFE_INTEGER ? `at least ${min}` : `from ${min} to ${max}`
      problems.push(`${name} must be an integer ${range} (got "${raw}")`)
      return fallback
    }
    return value
  }

  const nodeEnv = read(env, 'NODE_ENV') ?? 'development'
  const databaseUrl = read(env, 'DATABASE_URL')
  const parsedDatabase = parseDatabaseUrl(databaseUrl ?? DEFAULT_DATABASE_URL)
  let database: DatabaseConfig = { kind: 'sqlite', file: './data/partner-analytics.sqlite' }
  if (typeof parsedDatabase === 'string') problems.push(parsedDatabase)
  else database = parsedDatabase

  const jwtSecret = read(env, 'JWT_SECRET')
  if (jwtSecret !== undefined && jwtSecret.length < 32) {
    problems.push('JWT_SECRET must be at least 32 characters long')
  }
  if (jwtSecret === undefined && nodeEnv === 'production') {
    problems.push('JWT_SECRET is required when NODE_ENV=production')
  }

  const redisUrl = read(env, 'REDIS_URL')
  if (redisUrl !== undefined && !/^rediss?:\/\//.test(redisUrl)) {
    problems.push(`REDIS_URL must start with redis:// or rediss:// (got "${redisUrl}")`)
  }

  const jwtAlgorithm = read(env, 'JWT_ALGORITHM') ?? 'HS256'
  if (!(JWT_ALGORITHMS as readonly string[]).includes(jwtAlgorithm)) {
    problems.push(`JWT_ALGORITHM must be one of ${JWT_ALGORITHMS.join(', ')} (got "${jwtAlgorithm}")`)
  }

  const redisKeyPrefix = read(env, 'REDIS_KEY_PREFIX') ?? 'pa:'
  if (!/^[\x21-\x7e]{1,64}$/.test(redisKeyPrefix)) {
    problems.push(`REDIS_KEY_PREFIX must be 1 to 64 printable characters without spaces (got "${redisKeyPrefix}")`)
  }

  const trustProxy = parseTrustProxy(read(env, 'TRUST_PROXY'))
  if (typeof trustProxy === 'object') problems.push(trustProxy.problem)

  const logLevel = read(env, 'LOG_LEVEL') ?? 'info'
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got "${logLevel}")`)
  }

  const config: Config = {
    nodeEnv,
    database,
    isDefaultDatabase: databaseUrl === undefined,
    dataDir: database.kind === 'sqlite' && database.file !== ':memory:' ? dirname(resolve(database.file)) : resolve('data'),
    host: read(env, 'HOST') ?? '127.0.0.1',
    port: integer('PORT', 8000, 0, 65535),
    jwtSecret,
    tokenTtlSeconds: integer('TOKEN_TTL_SECONDS', 3600, 1),
    jwtAlgorithm: jwtAlgorithm as JwtAlgorithm,
    redisUrl,
    redisKeyPrefix,
    trustProxy: typeof trustProxy === 'object' ? false : trustProxy,
    rateLimit: {
      perMinute: integer('RATE_LIMIT_PER_MINUTE', 600, 0),
      perHour: integer('RATE_LIMIT_PER_HOUR', 20000, 0),
    },
    login: {
      maxFailures: integer('LOGIN_MAX_FAILURES', 10, 1),
      maxFailuresPerIp: integer('LOGIN_MAX_FAILURES_PER_IP', 100, 1),
      lockoutSeconds: integer('LOGIN_LOCKOUT_SECONDS', 900, 1),
    },
    logLevel: logLevel as Config['logLevel'],
  }

  if (problems.length > 0) throw new ConfigError(problems)
  return deepFreeze(config)
}

/**
 * TRUST_PROXY: unset/false/0 → false; true → trust every hop; a positive integer → that many
 * hops; otherwise a comma-separated list of proxy addresses or CIDRs (Fastify's formats).
 */
export function parseTrustProxy (raw: string | undefined): boolean | number | string | { problem: string } {
  if (raw === undefined) return false
  const lower = raw.toLowerCase()
  if (lower === 'false' || lower === '0') return false
  if (lower === 'true') return true
  if (/^\d+$/.test(raw)) return Number(raw)
  const items = raw.split(',').map((item) => item.trim())
  if (items.every((item) => /^[0-9A-Fa-f:.]+(\/\d{1,3})?$/.test(item))) return items.join(',')
  return { problem: `TRUST_PROXY must be true, false, a hop count or a comma-separated list of IP addresses/CIDRs (got "${raw}")` }
}

/**
 * Outside production a missing JWT_SECRET is generated once and kept in the data folder, so
 * tokens survive restarts. Returns a config whose `jwtSecret` is always set.
 */
export function resolveJwtSecret (config: Config): Config & { jwtSecret: string } {
  if (config.jwtSecret !== undefined) return config as Config & { jwtSecret: string }
  const file = join(config.dataDir, 'jwt-secret')
  let secret: string
  if (existsSync(file)) {
    secret = readFileSync(file, 'utf8').trim()
  } else {
    mkdirSync(config.dataDir, { recursive: true })
    secret = randomBytes(48).toString('base64url')
    writeFileSync(file, secret + '\n', { mode: 0o600 })
  }
  return deepFreeze({ ...config, jwtSecret: secret })
}

function deepFreeze<T> (value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const member of Object.values(value)) deepFreeze(member)
    Object.freeze(value)
  }
  return value
}
