import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { DEFAULT_RETRY_SCHEDULE, RETRY_SCHEDULE_PATTERN } from '../domain/webhooks/retry-schedule.js'

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

/** The most worker processes `serve` starts (WEB_CONCURRENCY, `--workers`). */
export const MAX_WORKERS = 64

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
  changes: Type.Object({
    /**
     * Days the change feed keeps an event (GET /changes): older events are purged in the
     * background by `serve`, and a cursor issued longer ago, or pointing before the purged
     * events, is answered 410 CURSOR_EXPIRED.
     */
    retentionDays: fromEnv(Type.Integer({ minimum: 1, maximum: 3650, default: 90 }), { env: 'CHANGES_RETENTION_DAYS' }),
  }),
  /** Bulk export jobs (docs/exports.md; docs/configuration.md). */
  exports: Type.Object({
    /** Folder of the export files on one machine; default: `exports` beside the SQLite file (or ./data/exports). */
    dir: Type.Optional(fromEnv(Type.String({ minLength: 1 }), { env: 'EXPORT_DIR' })),
    /** `s3://bucket/prefix`: keep the files in S3-compatible storage instead (every instance reaches it). */
    s3Url: Type.Optional(fromEnv(Type.String({ pattern: '^s3://[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](/.*)?$' }), { env: 'EXPORT_S3_URL', rule: 'look like s3://bucket or s3://bucket/prefix' })),
    /** The S3-compatible server, e.g. http://127.0.0.1:9000 (path-style addressing); unset: AWS. */
    s3Endpoint: Type.Optional(fromEnv(Type.String({ pattern: '^https?://' }), { env: 'EXPORT_S3_ENDPOINT', rule: 'start with http:// or https://' })),
    s3Region: fromEnv(Type.String({ minLength: 1, default: 'us-east-1' }), { env: 'EXPORT_S3_REGION' }),
    /** Credentials; unset: the AWS SDK's own chain (AWS_ACCESS_KEY_ID, instance roles, …). */
    s3AccessKeyId: Type.Optional(fromEnv(Type.String({ minLength: 1 }), { env: 'EXPORT_S3_ACCESS_KEY_ID', secret: true })),
    s3SecretAccessKey: Type.Optional(fromEnv(Type.String({ minLength: 1 }), { env: 'EXPORT_S3_SECRET_ACCESS_KEY', secret: true })),
    /** Hours a finished job's files are kept; afterwards its files and manifest answer 410. */
    retentionHours: fromEnv(Type.Integer({ minimum: 1, maximum: 8760, default: 72 }), { env: 'EXPORT_RETENTION_HOURS' }),
    /** Jobs running at once over every instance sharing the database; more wait queued. */
    concurrency: fromEnv(Type.Integer({ minimum: 1, maximum: 64, default: 2 }), { env: 'EXPORT_CONCURRENCY' }),
    /** Jobs of one partner running at once. */
    concurrencyPerPartner: fromEnv(Type.Integer({ minimum: 1, maximum: 64, default: 1 }), { env: 'EXPORT_CONCURRENCY_PER_PARTNER' }),
    /** Rows per file at most (a month of `daily` is cut into parts past it). */
    maxRowsPerFile: fromEnv(Type.Integer({ minimum: 1, maximum: 100_000_000, default: 1_000_000 }), { env: 'EXPORT_MAX_ROWS_PER_FILE' }),
    /** Rows per job at most: a larger export fails with TOO_LARGE (narrow it by brand or period). */
    maxRows: fromEnv(Type.Integer({ minimum: 1, maximum: 1_000_000_000, default: 100_000_000 }), { env: 'EXPORT_MAX_ROWS' }),
    /** A job running longer fails with TIMEOUT. */
    timeLimitSeconds: fromEnv(Type.Integer({ minimum: 1, maximum: 86_400, default: 3600 }), { env: 'EXPORT_TIME_LIMIT_SECONDS' }),
    /** DuckDB's memory for writing Parquet, MB (it spills to disk past it). */
    parquetMemoryMb: fromEnv(Type.Integer({ minimum: 16, maximum: 65_536, default: 128 }), { env: 'EXPORT_PARQUET_MEMORY_MB' }),
    /** The nice value of each export process's threads (0: the serving process's priority). */
    nice: fromEnv(Type.Integer({ minimum: 0, maximum: 19, default: 10 }), { env: 'EXPORT_NICE' }),
  }),
  /**
   * Worker processes `serve` runs on one port (docs/operations.md "Workers"): from WEB_CONCURRENCY
   * (an integer, or `auto` for the number of cores; src/config/load.ts), overridden by `serve --workers`.
   */
  workers: Type.Integer({ minimum: 1, maximum: MAX_WORKERS }),
  /** The Prometheus listener (docs/operations.md "Metrics"): off unless METRICS_PORT is set; never the public port. */
  metrics: Type.Object({
    port: Type.Optional(fromEnv(Type.Integer({ minimum: 0, maximum: 65535 }), { env: 'METRICS_PORT' })),
    host: fromEnv(Type.String({ default: '127.0.0.1' }), { env: 'METRICS_HOST' }),
  }),
  /** Read replicas (docs/operations.md "Read replicas"): PostgreSQL only. */
  replicas: Type.Object({
    /** From DATABASE_REPLICA_URLS, comma-separated (src/config/load.ts). */
    urls: Type.Array(Type.String()),
    /** A replica further behind than this (or down) is skipped until it catches up. */
    maxLagMs: fromEnv(Type.Integer({ minimum: 100, maximum: 3_600_000, default: 5000 }), { env: 'REPLICA_MAX_LAG_MS' }),
    /** How often each instance compares every replica with the primary. */
    checkIntervalMs: fromEnv(Type.Integer({ minimum: 50, maximum: 10_000, default: 500 }), { env: 'REPLICA_CHECK_INTERVAL_MS' }),
  }),
  webhooks: Type.Object({
    /**
     * Development and tests only: lets webhook URLs use http:// and private or loopback
     * addresses (docs/webhooks.md "Safe targets").
     */
    allowPrivate: fromEnv(Type.Boolean({ default: false }), { env: 'WEBHOOK_ALLOW_PRIVATE', rule: 'be 1, 0, true or false' }),
    /** The waits between a delivery's attempts, e.g. `5s,5m,30m,2h,5h,10h,10h` (src/domain/webhooks/retry-schedule.ts). */
    retrySchedule: fromEnv(Type.String({ pattern: RETRY_SCHEDULE_PATTERN, default: DEFAULT_RETRY_SCHEDULE }), {
      env: 'WEBHOOK_RETRY_SCHEDULE', rule: 'be a comma-separated list of 1 to 20 durations such as 500ms, 5s, 5m or 2h',
    }),
    /** Attempts running at once in one instance, over every endpoint. */
    concurrency: fromEnv(Type.Integer({ minimum: 1, maximum: 1000, default: 32 }), { env: 'WEBHOOK_CONCURRENCY' }),
    /** Attempts running at once in one instance to one endpoint. */
    concurrencyPerEndpoint: fromEnv(Type.Integer({ minimum: 1, maximum: 100, default: 4 }), { env: 'WEBHOOK_CONCURRENCY_PER_ENDPOINT' }),
    /**
     * From WEBHOOK_DNS_SERVERS, comma-separated (src/config/load.ts): the name servers webhook
     * host names are looked up with, as node:dns's setServers takes them; absent: /etc/resolv.conf's.
     */
    dnsServers: Type.Optional(Type.Array(Type.String(), { minItems: 1 })),
  }),
})

export type Config = Readonly<Static<typeof ConfigSchema>>

/** A configuration whose JWT secret has been resolved (see `resolveJwtSecret`). */
export type ResolvedConfig = Config & { jwtSecret: string }
