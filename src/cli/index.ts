import { Command, CommanderError } from 'commander'
import { ConfigError } from '../config/load.js'
import { VERSION } from '../config/version.js'
import { AppError } from '../domain/errors.js'
import { registerDemoCommand } from './commands/demo.js'
import { registerImportCommand } from './commands/import.js'
import { registerMigrateCommand } from './commands/migrate.js'
import { registerServeCommand } from './commands/serve.js'
import { registerUserCommands } from './commands/users.js'
import { EXIT, processIo, say, type CliIo } from './io.js'

/** The `partner-analytics` operator CLI (README.md "Operator CLI"). */
export function buildProgram (io: CliIo): Command {
  const program = new Command('partner-analytics')
    .description('Operate Partner Analytics: serve the API, migrate, import data, manage partners')
    .version(VERSION)
    .showHelpAfterError()
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stderr.write(text),
      writeErr: (text) => io.stderr.write(text),
    })
  registerServeCommand(program, io)
  registerMigrateCommand(program, io)
  registerUserCommands(program, io)
  registerImportCommand(program, io)
  registerDemoCommand(program, io)
  for (const command of program.commands) exitOverrideDeep(command)
  return program
}

function exitOverrideDeep (command: Command): void {
  command.exitOverride().showHelpAfterError()
  for (const child of command.commands) exitOverrideDeep(child)
}

/** Runs the CLI and returns its exit code; never calls process.exit itself (tests run it in-process). */
export async function runCli (argv: string[], io: CliIo = processIo): Promise<number> {
  const program = buildProgram(io)
  try {
    await program.parseAsync(argv, { from: 'user' })
    return EXIT.OK
  } catch (error) {
    return exitCodeFor(error, io)
  }
}

function exitCodeFor (error: unknown, io: CliIo): number {
  if (error instanceof CommanderError) {
    // --help and --version end through here too, with exit code 0.
    return error.exitCode === 0 ? EXIT.OK : EXIT.USAGE
  }
  if (error instanceof ConfigError) {
    for (const problem of error.problems) say(io, `configuration error: ${problem}`)
    return EXIT.CONFIG
  }
  if (error instanceof AppError) {
    say(io, `error: ${error.message}`)
    return error.code === 'VALIDATION_ERROR' ? EXIT.USAGE : EXIT.FAILURE
  }
  say(io, `error: ${error instanceof Error ? error.message : String(error)}`)
  return EXIT.FAILURE
}
