import type { Command } from 'commander'
import { loadConfig } from '../../config/load.js'
import { migrateToLatest } from '../../storage/migrate.js'
import { openStore } from '../../storage/open-store.js'
import { printJson, say, type CliIo } from '../io.js'

export function registerMigrateCommand (program: Command, io: CliIo): void {
  program.command('migrate')
    .description('Bring the database schema up to date (also done at serve start)')
    .option('--json', 'print one JSON object on stdout')
    .action(async (options: { json?: boolean }) => {
      const config = loadConfig(io.env)
      const store = await openStore(config.database, { create: true })
      try {
        const report = await migrateToLatest(store)
        if (options.json === true) return printJson(io, report)
        say(io, report.applied.length === 0
          ? `Schema is up to date (${store.dialect}).`
          : `Applied ${report.applied.length} migration(s) on ${store.dialect}: ${report.applied.join(', ')}`)
      } finally {
        await store.destroy()
      }
    })
}
