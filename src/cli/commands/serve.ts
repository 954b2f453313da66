import type { Command } from 'commander'
import { startServer } from '../../http/server.js'
import type { CliIo } from '../io.js'

export function registerServeCommand (program: Command, io: CliIo): void {
  program.command('serve')
    .description('Migrate the database and serve the HTTP API (HOST, PORT; stops cleanly on SIGTERM/SIGINT)')
    .action(async () => {
      const server = await startServer(io)
      await server.closed
    })
}
