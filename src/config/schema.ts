import { Type, type Static, type TSchema } from '@sinclair/typebox'

/**
 * The service's configuration: its shape, every environment variable it is read from (`env`),
 * each variable's default and rules. src/config/load.ts reads the variables named here, checks
 * each value against its schema and words every problem from the schema's own bounds, so a rule
 * lives in one place. Nothing else reads `process.env`.
 */

/** HMAC algorithms a JWT_SECRET can sign with; one is chosen by JWT_ALGORITHM (default HS256). */
export const JWT_ALGORITHMS = ['HS256', 'HS384', 'HS512'] as const
export type JwtAlgorithm = (typeof JWT_ALGORITHMS)[number]

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const

/** Annotations on a leaf read from one environment variable. */
export interface EnvAnnotation {
  /** The variable's name. */
  env: string
  /** What a good value looks like, when a pattern alone would not say it (e.g. "start with redis://"). */
  rule?: string
  /** Never echo the value in a message. */
  secret?: boolean
}

function fromEnv<T extends TSchema> (schema: T, annotation: EnvAnnotation): T {
  return { ...schema, ...annotation }
}

const words = <T extends string>(values: readonly T[], fallback: T) => Type.Union(values.map((value) => Type.Literal(value)), { default: fallback })

export const SqliteDatabaseConfig = Type.Object({
  kind: Type.Literal('sqlite'),
  /** Path of the SQLite file, or `:memory:`. */
  file: Type.String(),
})

export const PostgresDatabaseConfig = Type.Object({
  kind: Type.Literal('postgres'),
  /** `postgres://…` connection string. */
  url: Type.String(),
  /** Optional schema put first on the search_path (tests run each suite in its own schema). */
  schema: Type.Optional(Type.String()),
})

export const DatabaseConfig = Type.Union([SqliteDatabaseConfig, PostgresDatabaseConfig])
export type DatabaseConfig = Static<typeof DatabaseConfig>

export const ConfigSchema = Type.Object({
  /** `NODE_ENV`; `production` makes JWT_SECRET mandatory and nothing else. */
  nodeEnv: fromEnv(Type.String({ default: 'development' }), { env: 'NODE_ENV' }),
  /** From DATABASE_URL (src/config/load.ts parseDatabaseUrl). */
  database: DatabaseConfig,
  /** True when DATABASE_URL was not set: the embedded demo database, seeded on first start. */
  isDefaultDatabase: Type.Boolean(),
  /** Folder for files the service keeps beside its data (generated JWT secret, demo key pair). */
  dataDir: Type.String(),
  host: fromEnv(Type.String({ default: '127.0.0.1' }), { env: 'HOST' }),
  port: fromEnv(Type.Integer({ minimum: 0, maximum: 65535, default: 8000 }), { env: 'PORT' }),
  /** HMAC key for tokens and cursors; generated into the data folder outside production when unset. */
  jwtSecret: Type.Optional(fromEnv(Type.String({ minLength: 32 }), { env: 'JWT_SECRET', secret: true })),
  /** Token lifetime in seconds, reported as `expires_in`. */
  tokenTtlSeconds: fromEnv(Type.Integer({ minimum: 1, default: 3600 }), { env: 'TOKEN_TTL_SECONDS' }),
  /** The one HMAC algorithm tokens are signed and verified with. */
  jwtAlgorithm: fromEnv(words(JWT_ALGORITHMS, 'HS256'), { env: 'JWT_ALGORITHM' }),
  redisUrl: Type.Optional(fromEnv(Type.String({ pattern: '^rediss?://' }), { env: 'REDIS_URL', rule: 'start with redis:// or rediss://' })),
  /** Put before every Redis key, so deployments (and test files) can share a server. */
  redisKeyPrefix: fromEnv(Type.String({ pattern: '^[\\x21-\\x7e]{1,64}$', default: 'pa:' }), { env: 'REDIS_KEY_PREFIX', rule: 'be 1 to 64 printable characters without spaces' }),
  /**
   * While Redis does not answer, each instance counts rate limits and login failures alone, in
   * process: every limit is then divided by this (rounded down, at least 1), so that the instances
   * together stay within the configured limits. Set it to the number of instances.
   */
  redisFallbackDivisor: fromEnv(Type.Integer({ minimum: 1, maximum: 1000, default: 2 }), { env: 'REDIS_FALLBACK_DIVISOR' }),
  /**
   * `TRUST_PROXY`: Fastify's trustProxy. false (default) uses the socket address as the client IP;
   * true trusts every X-Forwarded-For hop; a number trusts that many hops; a string lists trusted
   * proxy addresses/CIDRs. Per-IP limits (login) depend on it behind a load balancer.
   */
  trustProxy: Type.Union([Type.Boolean(), Type.Integer({ minimum: 1 }), Type.String()]),
  rateLimit: Type.Object({
    /** Requests per fixed minute window; 0 turns the window off. */
    perMinute: fromEnv(Type.Integer({ minimum: 0, default: 600 }), { env: 'RATE_LIMIT_PER_MINUTE' }),
    /** Requests per fixed hour window; 0 turns the window off. */
    perHour: fromEnv(Type.Integer({ minimum: 0, default: 20000 }), { env: 'RATE_LIMIT_PER_HOUR' }),
  }),
  login: Type.Object({
    /** Failed logins for one client key within the lockout window before it locks. */
    maxFailures: fromEnv(Type.Integer({ minimum: 1, default: 10 }), { env: 'LOGIN_MAX_FAILURES' }),
    /** Failed logins from one IP within the lockout window before it locks. */
    maxFailuresPerIp: fromEnv(Type.Integer({ minimum: 1, default: 100 }), { env: 'LOGIN_MAX_FAILURES_PER_IP' }),
    lockoutSeconds: fromEnv(Type.Integer({ minimum: 1, default: 900 }), { env: 'LOGIN_LOCKOUT_SECONDS' }),
  }),
  logLevel: fromEnv(words(LOG_LEVELS, 'info'), { env: 'LOG_LEVEL' }),
})

export type Config = Readonly<Static<typeof ConfigSchema>>

/** A configuration whose JWT secret has been resolved (see `resolveJwtSecret`). */
export type ResolvedConfig = Config & { jwtSecret: string }
