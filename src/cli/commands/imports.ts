import { InvalidArgumentError, type Command } from 'commander'
import { SYNC_PAGE_DEFAULT, SYNC_PAGE_MAX } from '../../services/import/syncs.service.js'
import { parseId } from '../arguments.js'
import { withServices } from '../context.js'
import { printJson, say, type CliIo } from '../io.js'
import { syncJson, syncLine, syncLines, syncSummaryJson } from '../sync-format.js'

/**
 * `imports list` and `imports show`: the syncs, one per committed import (docs/import.md "Syncs"),
 * read through services.syncs. A rejected or rolled-back import left none.
 */
export function registerImportsCommands (program: Command, io: CliIo): void {
  const imports = program.command('imports').description('The imports that committed (syncs): what each read and changed, and its events')

  imports.command('list')
    .description(`List syncs, newest first, ${SYNC_PAGE_DEFAULT} at a time (page on with --before)`)
    .option('--limit <n>', `syncs per page, 1 to ${SYNC_PAGE_MAX} (default ${SYNC_PAGE_DEFAULT})`, parseLimit)
    .option('--before <sync_id>', 'only syncs older than this one (the next page: the last id shown)', parseId)
    .option('--json', 'print one JSON object on stdout')
    .action(async (options: { limit?: number, before?: number, json?: boolean }) => {
      const page = await withServices(io, ({ services }) => services.syncs.list({ limit: options.limit, before: options.before }))
      if (options.json === true) {
        return printJson(io, { syncs: page.syncs.map(syncSummaryJson), has_more: page.hasMore, next_before: page.nextBefore })
      }
      if (page.syncs.length === 0) return say(io, options.before === undefined ? 'No syncs: no import has committed yet.' : `No syncs before ${options.before}.`)
      for (const sync of page.syncs) say(io, syncLine(sync))
      if (page.nextBefore !== null) say(io, `More: imports list --before ${page.nextBefore}`)
    })

  imports.command('show')
    .description('Show one sync: its times, sources, counts, events, and the brands and accounts it changed')
    .argument('<sync_id>', 'the sync\'s id (as `imports list` and `import` print it)', parseId)
    .option('--json', 'print one JSON object on stdout')
    .action(async (syncId: number, options: { json?: boolean }) => {
      const sync = await withServices(io, ({ services }) => services.syncs.show(syncId))
      if (options.json === true) return printJson(io, syncJson(sync))
      for (const line of syncLines(sync)) say(io, line)
    })
}

function parseLimit (value: string): number {
  const limit = Number(value.trim())
  if (!/^\d+$/.test(value.trim()) || limit < 1 || limit > SYNC_PAGE_MAX) {
    throw new InvalidArgumentError(`expected an integer from 1 to ${SYNC_PAGE_MAX}, got "${value}"`)
  }
  return limit
}
