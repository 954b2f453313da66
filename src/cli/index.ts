import { Command, CommanderError } from 'commander'
import { VERSION } from '../config/version.js'
import { registerCatalogCommands } from './commands/catalog.js'
import { registerCredentialCommands } from './commands/credentials.js'
import { registerDemoCommand } from './commands/demo.js'
import { registerImportCommand } from './commands/import.js'
import { registerImportsCommands } from './commands/imports.js'
import { registerMigrateCommand } from './commands/migrate.js'
import { registerServeCommand } from './commands/serve.js'
import { registerUsageCommand } from './commands/usage.js'
import { registerUserCommands } from './commands/users.js'
import { registerWebhookCommands } from './commands/webhooks.js'
import { unstorableMessage } from '../domain/storable-text.js'
import { CommandError, describeFailure } from './errors.js'
import { EXIT, printJson, processIo, say, type CliIo } from './io.js'

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
  registerCredentialCommands(program, io)
  registerCatalogCommands(program, io)
  registerUsageCommand(program, io)
  registerWebhookCommands(program, io)
  registerImportCommand(program, io)
  registerImportsCommands(program, io)
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
    refuseUnstorableArguments(argv)
    await program.parseAsync(argv, { from: 'user' })
    return EXIT.OK
  } catch (error) {
    // --help and --version end through here too, with exit code 0.
    if (error instanceof CommanderError && error.exitCode === 0) return EXIT.OK
    const failed = describeFailure(error)
    for (const line of failed.lines) say(io, line)
    // With --json, a failure is one JSON object on stdout too, so `| jq` always has something to read.
    if (wantsJson(argv)) printJson(io, failed.json)
    return failed.exitCode
  }
}

/**
 * An argument no store can hold as given (a NUL, an unpaired surrogate: src/domain/storable-text.ts)
 * is refused before any command runs, whichever option or command it is for.
 */
function refuseUnstorableArguments (argv: string[]): void {
  argv.forEach((argument, index) => {
    const message = unstorableMessage(`argument ${index + 1} ${JSON.stringify(argument)}`, argument)
    if (message !== undefined) throw new CommandError('USAGE_ERROR', message, EXIT.USAGE)
  })
}

/** `--json` among the options (not after `--`, where it would be an argument). */
function wantsJson (argv: string[]): boolean {
  const end = argv.indexOf('--')
  return (end === -1 ? argv : argv.slice(0, end)).includes('--json')
}
