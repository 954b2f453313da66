import type { FastifyBaseLogger } from 'fastify'

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace'
type LogFn = FastifyBaseLogger['info']

/**
 * A request's logger, made only when the request logs something. Fastify asks for a child logger
 * per request (bound to its request id and trace id: src/http/app.ts); making a pino child costs
 * about as much as the rest of a daily page's own work, and at the production level (warn) almost
 * no request writes a line. So the child is made on the first line the parent's level lets through
 * (or the first `child`/`level` use), and a line below that level costs one comparison. The lines
 * written are the child's own, byte for byte.
 */
export class DeferredLogger {
  #made: FastifyBaseLogger | undefined

  constructor (private readonly parent: FastifyBaseLogger, private readonly make: () => FastifyBaseLogger) {}

  private get made (): FastifyBaseLogger {
    this.#made ??= this.make()
    return this.#made
  }

  get level (): string { return this.#made?.level ?? this.parent.level }
  set level (level: string) { this.made.level = level }

  fatal: LogFn = (...args: unknown[]) => { this.write('fatal', args) }
  error: LogFn = (...args: unknown[]) => { this.write('error', args) }
  warn: LogFn = (...args: unknown[]) => { this.write('warn', args) }
  info: LogFn = (...args: unknown[]) => { this.write('info', args) }
  debug: LogFn = (...args: unknown[]) => { this.write('debug', args) }
  trace: LogFn = (...args: unknown[]) => { this.write('trace', args) }
  silent: LogFn = () => {}

  child (bindings: Record<string, unknown>, options?: Record<string, unknown>): FastifyBaseLogger {
    return this.made.child(bindings, options)
  }

  isLevelEnabled (level: string): boolean {
    const logger = (this.#made ?? this.parent) as FastifyBaseLogger & { isLevelEnabled?: (level: string) => boolean }
    return logger.isLevelEnabled?.(level) ?? true
  }

  private write (level: Level, args: unknown[]): void {
    if (this.#made === undefined && !this.isLevelEnabled(level)) return
    ;(this.made[level] as (...rest: unknown[]) => void)(...args)
  }
}

/** A deferred child of `parent`, typed as the logger Fastify expects. */
export function deferredChild (parent: FastifyBaseLogger, make: () => FastifyBaseLogger): FastifyBaseLogger {
  return new DeferredLogger(parent, make) as unknown as FastifyBaseLogger
}
