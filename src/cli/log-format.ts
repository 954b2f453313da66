import { PinoPretty } from 'pino-pretty'

/**
 * Logs for a person at a terminal: pino-pretty's one line per event (time, level, message, and
 * the request's fields), written to `destination`. `serve` uses it when stdout is a terminal;
 * otherwise logs stay JSON lines, for collectors (README.md "Configuration", LOG_LEVEL).
 */
export function humanLogStream (destination: NodeJS.WritableStream, colorize = true): NodeJS.WritableStream {
  return PinoPretty({
    destination,
    colorize,
    translateTime: 'SYS:HH:MM:ss',
    ignore: 'pid,hostname',
    // Writes as it goes: a line shows as soon as it is logged, and nothing waits at exit.
    sync: true,
  })
}
