import { CommanderError } from 'commander'
import { ConfigError } from '../config/load.js'
import { AppError } from '../domain/errors.js'
import { ImportRejectedError } from '../services/import/import.service.js'
import { StoreUnavailableError } from '../storage/open-store.js'
import { EXIT } from './io.js'

/**
 * How a failed command ends (README.md "Operator CLI"): its exit code, the line(s) for stderr,
 * and, with --json, the one object for stdout: `{"error": {"code", "message", "exit_code", …}}`.
 */

/** A failure the CLI itself raises, with its JSON code and extra members (e.g. an import's errors). */
export class CommandError extends Error {
  constructor (
    readonly code: string,
    message: string,
    readonly exitCode: number,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message)
    this.name = 'CommandError'
  }
}

export interface CommandFailure {
  exitCode: number
  /** Lines for stderr (without the newline); empty when commander already printed its own. */
  lines: string[]
  /** The object --json prints on stdout. */
  json: { error: Record<string, unknown> & { code: string, message: string, exit_code: number } }
}

function failure (code: string, message: string, exitCode: number, lines: string[], details: Record<string, unknown> = {}): CommandFailure {
  return { exitCode, lines, json: { error: { code, message, exit_code: exitCode, ...details } } }
}

export function describeFailure (error: unknown): CommandFailure {
  if (error instanceof CommanderError) {
    // Commander printed its message (and the help) already; `error: ` is its own prefix.
    return failure('USAGE_ERROR', error.message.replace(/^error: /, ''), EXIT.USAGE, [])
  }
  if (error instanceof ConfigError) {
    return failure('CONFIGURATION_ERROR', error.problems.join('; '), EXIT.CONFIG, error.problems.map((problem) => `configuration error: ${problem}`), { problems: error.problems })
  }
  if (error instanceof CommandError) {
    return failure(error.code, error.message, error.exitCode, [`error: ${error.message}`], error.details)
  }
  if (error instanceof AppError) {
    const exitCode = error.code === 'VALIDATION_ERROR' ? EXIT.USAGE : EXIT.FAILURE
    return failure(error.code, error.message, exitCode, [`error: ${error.message}`])
  }
  if (error instanceof StoreUnavailableError) {
    return failure(error.reason === 'missing' ? 'DATABASE_MISSING' : 'DATABASE_UNREACHABLE', error.message, EXIT.FAILURE, [`error: ${error.message}`])
  }
  if (error instanceof ImportRejectedError) {
    return failure('IMPORT_REJECTED', error.message, EXIT.FAILURE, [`error: ${error.message}`])
  }
  const message = error instanceof Error ? error.message : String(error)
  return failure('FAILED', message, EXIT.FAILURE, [`error: ${message}`])
}
