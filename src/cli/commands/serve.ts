import type { Command } from 'commander'
import type { CliIo } from '../io.js'

export function registerServeCommand (program: Command, io: CliIo): void {
  program.command('serve')
    .description('Migrate the database and serve the HTTP API (HOST, PORT; stops cleanly on SIGTERM/SIGINT)')
    .action(async () => {
      // Loaded on demand: the other commands need neither Fastify nor the demo generator.
      const { startServer } = await import('../../http/server.js')
      const server = await startServer(io)
      await server.closed
    })
}
