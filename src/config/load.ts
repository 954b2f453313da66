import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import { isIP } from 'node:net'
import { availableParallelism } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import type { TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { ConfigSchema, MAX_WORKERS, type Config, type DatabaseConfig, type EnvAnnotation, type ResolvedConfig } from './schema.js'

/**
 * The only module that reads `process.env`. Every variable ConfigSchema names (src/config/schema.ts)
 * is read and checked against its schema, every bad one is reported at once (one line each, naming
 * the variable), and the result is frozen.
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

interface LeafSchema extends Partial<EnvAnnotation> {
  type?: string
  default?: unknown
  minimum?: number
  maximum?: number
  minLength?: number
  anyOf?: Array<{ const?: unknown }>
  properties?: Record<string, LeafSchema>
}

/** What a good value of this variable looks like, from its schema's own bounds. */
function ruleOf (schema: LeafSchema): string {
  if (schema.rule !== undefined) return schema.rule
  if (schema.anyOf !== undefined) return `be one of ${schema.anyOf.map((option) => String(option.const)).join(', ')}`
  if (schema.type === 'integer') {
    return schema.maximum === undefined ? `be an integer at least ${schema.minimum ?? 0}` : `be an integer from ${schema.minimum ?? 0} to ${schema.maximum}`
  }
  if (schema.minLength !== undefined) return `be at least ${schema.minLength} characters long`
  return 'be a valid value'
}

/** A flag variable: 1/true or 0/false, case-insensitive; anything else is left as text, which the schema refuses. */
function parseFlag (raw: string): boolean | string {
  const lower = raw.toLowerCase()
  if (lower === '1' || lower === 'true') return true
  if (lower === '0' || lower === 'false') return false
  return raw
}

/** One variable read against its schema: the value, its default, or a problem line. */
function readVariable (env: Env, schema: LeafSchema & EnvAnnotation, problems: string[]): unknown {
  const raw = read(env, schema.env)
  if (raw === undefined) return schema.default
  // Numbers are plain decimal digits, as everywhere in the contract: `1e3` or `0x10` is no port.
  const value = schema.type === 'integer' ? (/^\d+$/.test(raw) ? Number(raw) : Number.NaN) : schema.type === 'boolean' ? parseFlag(raw) : raw
  if (Value.Check(schema as unknown as TSchema, value)) return value
  problems.push(`${schema.env} must ${ruleOf(schema)}${schema.secret === true ? '' : ` (got "${raw}")`}`)
  return schema.default
}

/** Every property of the schema that names a variable, read into the same shape. */
function readSection (env: Env, properties: Record<string, LeafSchema>, problems: string[]): Record<string, unknown> {
  const section: Record<string, unknown> = {}
  for (const [name, schema] of Object.entries(properties)) {
    if (schema.env !== undefined) {
      const value = readVariable(env, schema as LeafSchema & EnvAnnotation, problems)
      if (value !== undefined) section[name] = value
    } else if (schema.type === 'object' && schema.properties !== undefined && Object.values(schema.properties).some((child) => child.env !== undefined)) {
      section[name] = readSection(env, schema.properties, problems)
    }
  }
  return section
}

export function loadConfig (env: Env = process.env): Config {
  const problems: string[] = []
  const variables = readSection(env, (ConfigSchema as unknown as { properties: Record<string, LeafSchema> }).properties, problems)

  const databaseUrl = read(env, 'DATABASE_URL')
  const parsedDatabase = parseDatabaseUrl(databaseUrl ?? DEFAULT_DATABASE_URL)
  let database: DatabaseConfig = { kind: 'sqlite', file: './data/partner-analytics.sqlite' }
  if (typeof parsedDatabase === 'string') problems.push(parsedDatabase)
  else database = parsedDatabase

  if (variables.jwtSecret === undefined && read(env, 'JWT_SECRET') === undefined && variables.nodeEnv === 'production') {
    problems.push('JWT_SECRET is required when NODE_ENV=production')
  }

  const trustProxy = parseTrustProxy(read(env, 'TRUST_PROXY'))
  if (typeof trustProxy === 'object') problems.push(trustProxy.problem)

  const workers = parseWorkers(read(env, 'WEB_CONCURRENCY'), 'WEB_CONCURRENCY')
  if (typeof workers === 'string') problems.push(workers)

  const replicaUrls = parseReplicaUrls(read(env, 'DATABASE_REPLICA_URLS'), database)
  if (typeof replicaUrls === 'string') problems.push(replicaUrls)

  const dnsServers = parseDnsServers(read(env, 'WEBHOOK_DNS_SERVERS'))
  if (typeof dnsServers === 'string') problems.push(dnsServers)

  const metrics = variables.metrics as { port?: number } | undefined
  if (metrics?.port !== undefined && metrics.port !== 0 && metrics.port === (variables.port ?? 8000)) {
    problems.push(`METRICS_PORT must differ from PORT: metrics are never served on the public port (got "${metrics.port}")`)
  }

  const config = {
    ...variables,
    workers: typeof workers === 'string' ? 1 : workers,
    replicas: { ...(variables.replicas as object), urls: typeof replicaUrls === 'string' ? [] : replicaUrls },
    webhooks: { ...(variables.webhooks as object), ...(Array.isArray(dnsServers) ? { dnsServers } : {}) },
    database,
    isDefaultDatabase: databaseUrl === undefined,
    dataDir: database.kind === 'sqlite' && database.file !== ':memory:' ? dirname(resolve(database.file)) : resolve('data'),
    trustProxy: typeof trustProxy === 'object' ? false : trustProxy,
  }
  if (problems.length > 0) throw new ConfigError(problems)
  // Every variable was checked on its own; this checks the whole (and catches a schema change not reflected here).
  if (!Value.Check(ConfigSchema, config)) throw new ConfigError([...Value.Errors(ConfigSchema, config)].map((error) => `configuration ${error.path}: ${error.message}`))
  return deepFreeze(config as Config)
}

/**
 * WEB_CONCURRENCY or `serve --workers`: unset → 1; `auto` → the number of cores this process may
 * use; else an integer from 1 to MAX_WORKERS. A problem is returned as the line naming `source`.
 */
export function parseWorkers (raw: string | undefined, source: string): number | string {
  if (raw === undefined) return 1
  if (raw.toLowerCase() === 'auto') return Math.min(MAX_WORKERS, availableParallelism())
  if (/^\d+$/.test(raw) && Number(raw) >= 1 && Number(raw) <= MAX_WORKERS) return Number(raw)
  return `${source} must be auto or an integer from 1 to ${MAX_WORKERS} (got "${raw}")`
}

/**
 * DATABASE_REPLICA_URLS: comma-separated PostgreSQL URLs of streaming replicas of DATABASE_URL's
 * server (docs/operations.md "Read replicas"); only with a PostgreSQL DATABASE_URL.
 */
export function parseReplicaUrls (raw: string | undefined, database: DatabaseConfig): string[] | string {
  if (raw === undefined) return []
  const urls = raw.split(',').map((item) => item.trim()).filter((item) => item !== '')
  const bad = urls.find((url) => !url.startsWith('postgres://') && !url.startsWith('postgresql://'))
  if (bad !== undefined) return `DATABASE_REPLICA_URLS must be comma-separated postgres:// or postgresql:// URLs (got "${withoutPassword(bad)}")`
  if (urls.length > 0 && database.kind !== 'postgres') return 'DATABASE_REPLICA_URLS needs a PostgreSQL DATABASE_URL (replicas are PostgreSQL streaming replicas of it)'
  return urls
}

/**
 * WEBHOOK_DNS_SERVERS: comma-separated name servers for webhook host names, each an address with
 * an optional port — `192.0.2.53`, `192.0.2.53:5353`, `2001:db8::53` or `[2001:db8::53]:5353` —
 * the forms node:dns's setServers takes. Unset: undefined (the system's name servers).
 */
export function parseDnsServers (raw: string | undefined): string[] | string | undefined {
  if (raw === undefined) return undefined
  const servers = raw.split(',').map((item) => item.trim()).filter((item) => item !== '')
  const valid = (server: string): boolean => {
    if (isIP(server) !== 0) return true
    const match = /^(?:\[([^\]]+)\]|([\d.]+)):(\d{1,5})$/.exec(server)
    if (match === null) return false
    const port = Number(match[3])
    return port >= 1 && port <= 65535 && (match[1] !== undefined ? isIP(match[1]) === 6 : isIP(match[2] ?? '') === 4)
  }
  const bad = servers.find((server) => !valid(server))
  if (servers.length === 0 || bad !== undefined) {
    return `WEBHOOK_DNS_SERVERS must be comma-separated IP addresses, each with an optional port (192.0.2.53, 192.0.2.53:5353, [2001:db8::53]:5353) (got "${raw}")`
  }
  return servers
}

/** A URL fit to print: its password replaced by `***`. */
function withoutPassword (url: string): string {
  return url.replace(/\/\/([^:/@]*):[^@]*@/, '//$1:***@')
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
export function resolveJwtSecret (config: Config): ResolvedConfig {
  if (config.jwtSecret !== undefined) return config as ResolvedConfig
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
