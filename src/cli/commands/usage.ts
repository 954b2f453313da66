import type { Command } from 'commander'
import { withServices } from '../context.js'
import { CommandError } from '../errors.js'
import { EXIT, printJson, say, type CliIo } from '../io.js'

/**
 * `usage <user_id>`: the user's requests in the current minute and hour windows, read from the
 * counters the servers share in Redis. Run it with the servers' REDIS_URL, REDIS_KEY_PREFIX and
 * RATE_LIMIT_* variables.
 */
export function registerUsageCommand (program: Command, io: CliIo): void {
  program.command('usage <user_id>')
    .description('Show a user\'s requests in the current rate-limit windows (needs the servers\' REDIS_URL)')
    .option('--json', 'print one JSON object on stdout')
    .action(async (userId: string, options: { json?: boolean }) => {
      const report = await withServices(io, ({ services }) => services.usage.read(userId))
      if (report.state === 'in-process') {
        throw new CommandError('USAGE_NOT_SHARED', 'REDIS_URL is not set, so each server counts requests in its own memory, which this command cannot read; ' +
          'set REDIS_URL (the same for the servers and this command) to share and read the counts', EXIT.FAILURE)
      }
      if (options.json === true) return printJson(io, report.state === 'off' ? { user_id: userId, rate_limits: 'off', windows: [] } : { user_id: userId, windows: report.windows })
      if (report.state === 'off') return say(io, 'Rate limiting is off (RATE_LIMIT_PER_MINUTE=0 and RATE_LIMIT_PER_HOUR=0): nothing is counted.')
      for (const window of report.windows) {
        say(io, `${userId}: ${window.requests} request${window.requests === 1 ? '' : 's'} this ${window.window} ` +
          `(${window.limit === null ? 'no limit' : `limit ${window.limit}`}; the window resets at ${window.resets_at})`)
      }
    })
}
