import { Type, type Static } from '@sinclair/typebox'

/**
 * The service's configuration, as the rest of the code sees it. Built only by `loadConfig`
 * (src/config/load.ts) from the environment variables of DECISIONS.md §9, and frozen.
 */

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

/** HMAC algorithms a JWT_SECRET can sign with; one is chosen by JWT_ALGORITHM (default HS256). */
export const JWT_ALGORITHMS = ['HS256', 'HS384', 'HS512'] as const
export type JwtAlgorithm = (typeof JWT_ALGORITHMS)[number]

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const

export const ConfigSchema = Type.Object({
  /** `NODE_ENV`; `production` makes JWT_SECRET mandatory and nothing else. */
  nodeEnv: Type.String(),
  database: DatabaseConfig,
  /** True when DATABASE_URL was not set: the embedded demo database, seeded on first start. */
  isDefaultDatabase: Type.Boolean(),
  /** Folder for files the service keeps beside its data (generated JWT secret, demo key pair). */
  dataDir: Type.String(),
  host: Type.String(),
  port: Type.Integer({ minimum: 0, maximum: 65535 }),
  /** HMAC key for tokens and cursors; undefined until `resolveJwtSecret` fills it outside production. */
  jwtSecret: Type.Optional(Type.String({ minLength: 32 })),
  /** Token lifetime in seconds, reported as `expires_in`. */
  tokenTtlSeconds: Type.Integer({ minimum: 1 }),
  /** `JWT_ALGORITHM`: the one HMAC algorithm tokens are signed and verified with. */
  jwtAlgorithm: Type.Union(JWT_ALGORITHMS.map((algorithm) => Type.Literal(algorithm))),
  redisUrl: Type.Optional(Type.String()),
  /** `REDIS_KEY_PREFIX`: put before every Redis key, so deployments (and test files) can share a server. */
  redisKeyPrefix: Type.String(),
  /**
   * `TRUST_PROXY`: Fastify's trustProxy. false (default) uses the socket address as the client IP;
   * true trusts every X-Forwarded-For hop; a number trusts that many hops; a string lists trusted
   * proxy addresses/CIDRs. Per-IP limits (login) depend on it behind a load balancer.
   */
  trustProxy: Type.Union([Type.Boolean(), Type.Integer({ minimum: 1 }), Type.String()]),
  rateLimit: Type.Object({
    /** Requests per fixed minute window; 0 turns the window off. */
    perMinute: Type.Integer({ minimum: 0 }),
    /** Requests per fixed hour window; 0 turns the window off. */
    perHour: Type.Integer({ minimum: 0 }),
  }),
  login: Type.Object({
    /** Failed logins for one client key within the lockout window before it locks. */
    maxFailures: Type.Integer({ minimum: 1 }),
    /** Failed logins from one IP within the lockout window before it locks. */
    maxFailuresPerIp: Type.Integer({ minimum: 1 }),
    lockoutSeconds: Type.Integer({ minimum: 1 }),
  }),
  logLevel: Type.Union(LOG_LEVELS.map((level) => Type.Literal(level))),
})

export type Config = Readonly<Static<typeof ConfigSchema>>
